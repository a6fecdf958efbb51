"""The rates in force on a day, kept in memory per process: the order path converts with no database read
for a day already asked (docs/performance.md), and with one indexed read otherwise.

The rates in force on day D are those of the newest publication day on or before D (the ECB publishes none
on weekends and TARGET holidays: Saturday takes Friday's). A day whose own publication is stored is final:
stored rates never change. Any other (today, before 16:00 CET or before the refresh ran) is read again after
FX_RATES_CACHE_SECONDS, so a process picks up the day's publication once it is stored.
"""

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.conf import settings

from ..models import FxRate

MAX_DAYS = 1024  # days kept per process (a backfill walks many; the order path asks for today's)


@dataclass(frozen=True)
class DayRates:
    """The publication in force on a day: its date (None: no rate stored on or before it) and its rates."""

    published: date | None
    rates: dict[str, tuple[Decimal, str]] = field(default_factory=dict)  # currency -> (per euro, source)


_days: OrderedDict[date, tuple[float, DayRates]] = OrderedDict()
_historical: dict[tuple[str, date], DayRates] = {}  # a migration's reads, for the length of its run


def clock() -> float:
    return time.monotonic()


def rates_on(day: date, *, model=None) -> DayRates:
    """The rates in force on `day`. `model`: a migration's historical FxRate, read without the cache."""
    if model is not None:
        key = (model._meta.label, day)
        if key not in _historical:
            _historical[key] = _read(day, model)
        return _historical[key]
    now = clock()
    held = _days.get(day)
    if held is not None and held[0] > now:
        return held[1]
    found = _read(day, FxRate)
    expires = math.inf if found.published == day else now + settings.FX_RATES_CACHE_SECONDS
    _days[day] = (expires, found)
    _days.move_to_end(day)
    if len(_days) > MAX_DAYS:
        _days.popitem(last=False)
    return found


def _read(day: date, model) -> DayRates:
    # One read on fxrate_one_per_day: the newest day on or before `day`, and that day's rows.
    newest = model.objects.filter(day__lte=day).order_by("-day").values("day")[:1]
    rows = list(model.objects.filter(day=newest).values_list("day", "currency", "per_euro", "source"))
    if not rows:
        return DayRates(None)
    # normalize(): the rate as published (1.1172), not as the column pads it (1.117200).
    return DayRates(rows[0][0], {currency: (rate.normalize(), source) for _, currency, rate, source in rows})


def forget() -> None:
    """Drop what this process keeps (after a load, and between tests)."""
    _days.clear()
    _historical.clear()


def newest_day() -> date | None:
    """The newest day any rate is stored for (the stale-rates incident reads it)."""
    return FxRate.objects.order_by("-day").values_list("day", flat=True).first()
