"""Currency rates for the demo's own days, offline: the bundled ECB history ends on its release day, so a fresh
demo would open "Currency rates out of date" at once and convert its recent orders at weeks-old rates. The last
bundled day's rates are carried to every working day since, stored with the source "demo" (never "ECB"), so the
pages show them for what they are. Only seed_demo calls this, never a deployment (it refuses to run with DEBUG
off): a deployment loads the ECB's own rates (`load_fx_rates`, docs/operations.md)."""

from datetime import date, timedelta

from attribution.fx import ecb
from attribution.fx.loading import store
from attribution.models import FxRate

SOURCE = "demo"


def keep_demo_rates(*, today: date) -> int:
    """Store the newest stored day's rates for each working day after it up to `today`; how many were added."""
    newest = FxRate.objects.order_by("-day").values_list("day", flat=True).first()
    if newest is None or newest >= today:
        return 0
    last = list(FxRate.objects.filter(day=newest).values_list("currency", "per_euro"))
    days = [newest + timedelta(days=n) for n in range(1, (today - newest).days + 1)]
    rates = [
        ecb.Rate(day=day, currency=currency, per_euro=per_euro)
        for day in days
        if day.weekday() < 5  # the ECB publishes on working days only
        for currency, per_euro in last
    ]
    return store(rates, source=SOURCE)
