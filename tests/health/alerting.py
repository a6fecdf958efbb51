"""Helpers of the alert tests: a fixed clock the tests move by hand, events logged at a given moment, and
the hourly history the roll-up would have left (written directly: a week of events one by one is slow)."""

from datetime import UTC, datetime, timedelta

import pytest

from attribution.outcomes import OUTCOMES, Outcome
from health.log.models import HourlyOutcomeCount, OutcomeEvent
from health.log.writer import EventRecord, record

# A Wednesday, 14:00 UTC.
T0 = datetime(2026, 3, 4, 14, 0, tzinfo=UTC)


def log(
    brand,
    outcome=Outcome.NO_ATTRIBUTION,
    *,
    at,
    endpoint="order_confirmation",
    is_test=False,
    n=1,
    order_id="",
):
    """`n` events of `brand` received (and recorded) at `at`."""
    for i in range(n):
        record(
            EventRecord(
                endpoint=endpoint,
                outcome=str(outcome),
                http_status=OUTCOMES[Outcome(outcome)].status,
                received_at=at,
                recorded_at=at,
                brand_id=brand.pk if brand else None,
                order_id=order_id or f"ORD-{at:%d%H%M%S}-{i}",
                is_test=is_test,
            )
        )
    return OutcomeEvent.objects.filter(brand=brand).order_by("-id").first()


def history(
    brand, per_hour, *, until, days=8, outcome="no_attribution", is_test=False, endpoint="order_confirmation"
):
    """Hourly counts of live events (order confirmations unless `endpoint` says otherwise) for the `days` days
    before `until`: per_hour(hour) each hour."""
    start = until.replace(minute=0, second=0, microsecond=0) - timedelta(days=days)
    rows, hour = [], start
    while hour < until - timedelta(hours=1):
        n = per_hour(hour)
        if n:
            rows.append(
                HourlyOutcomeCount(
                    brand=brand,
                    hour=hour,
                    endpoint=endpoint,
                    outcome=outcome,
                    is_test=is_test,
                    count=n,
                )
            )
        hour += timedelta(hours=1)
    HourlyOutcomeCount.objects.bulk_create(rows)


@pytest.fixture
def busy(brand):
    """Acme sends 10 orders an hour, day and night, for a week; its last order came at T0."""
    history(brand, lambda hour: 10, until=T0)
    log(brand, at=T0)
    return brand
