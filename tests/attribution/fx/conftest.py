"""The reference rates the conversion tests read, spelled out (the ECB's of those days), stored whatever the
migration loaded: a transactional test elsewhere may have emptied the table."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from attribution.fx import ecb, loading
from attribution.models import FxRate

THURSDAY, FRIDAY = date(2026, 10, 29), date(2026, 10, 30)
SATURDAY_NOON = datetime(2026, 10, 31, 12, 0, tzinfo=UTC)
FRIDAY_NOON = datetime(2026, 10, 30, 12, 0, tzinfo=UTC)

# 1 EUR = x, as the ECB published them (eurofxref-hist.csv); KWD is no ECB currency: a rate another source
# would bring, for the three-place rounding.
PUBLISHED = {
    THURSDAY: {"USD": "1.1200", "JPY": "176.02", "GBP": "0.8351", "KWD": "0.34400"},
    FRIDAY: {"USD": "1.1172", "JPY": "175.68", "GBP": "0.8338", "KWD": "0.34312"},
}


@pytest.fixture
def rates(db):
    """Thursday's and Friday's rates, and none after (the days after Friday are removed, as they would be
    missing on the day the order came)."""
    FxRate.objects.filter(day__gt=FRIDAY).delete()
    FxRate.objects.filter(day__in=list(PUBLISHED)).delete()
    loading.store(
        [
            ecb.Rate(day, currency, Decimal(value))
            for day, values in PUBLISHED.items()
            for currency, value in values.items()
        ]
    )
    return PUBLISHED
