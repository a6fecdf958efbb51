"""The roll-up: outcome events folded into daily and hourly counts, exactly once, in order."""

import threading
from collections import Counter
from datetime import UTC, timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from attribution.outcomes import Outcome
from health.log.models import DailyOutcomeCount, HourlyOutcomeCount, OutcomeEvent, RollupWatermark
from health.log.rollup import SAFETY_LAG, WATERMARK_PK, roll_up
from health.pages import periods
from health.pages.overview import queries

pytestmark = pytest.mark.django_db


def daily(brand) -> Counter:
    counts = Counter()
    for row in DailyOutcomeCount.objects.filter(brand=brand):
        counts[(row.day, row.endpoint, row.outcome, row.is_test)] += row.count
    return counts


def daily_from_log(brand) -> Counter:
    counts = Counter()
    for e in OutcomeEvent.objects.filter(brand=brand):
        counts[(e.received_at.astimezone(UTC).date(), e.endpoint, e.outcome, e.is_test)] += 1
    return counts


def hourly(brand) -> Counter:
    return Counter(
        {
            (r.hour, r.endpoint, r.outcome, r.is_test): r.count
            for r in HourlyOutcomeCount.objects.filter(brand=brand)
        }
    )


def watermark() -> int:
    return RollupWatermark.objects.get(pk=WATERMARK_PK).last_event_id


def test_it_folds_events_into_daily_counts_keyed_by_received_day(brand, make_event, now, old):
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=3), recorded_at=old)
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=3), recorded_at=old)
    make_event(brand, Outcome.NO_ATTRIBUTION, ago=timedelta(days=1), recorded_at=old)
    make_event(brand, Outcome.TRACKED, endpoint="cancel", ago=timedelta(days=1), recorded_at=old)
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=1), recorded_at=old, is_test=True)

    result = roll_up(now=now)

    assert result.events == 5 and result.caught_up
    assert daily(brand) == daily_from_log(brand)
    three_days_ago = (now - timedelta(days=3)).astimezone(UTC).date()
    assert daily(brand)[(three_days_ago, "order_confirmation", "tracked", False)] == 2
    assert watermark() == OutcomeEvent.objects.order_by("-id").first().pk


def test_it_folds_hourly_counts_too(brand, make_event, now, old):
    make_event(brand, ago=timedelta(hours=2), recorded_at=old)
    make_event(brand, ago=timedelta(hours=2), recorded_at=old)
    make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(hours=5), recorded_at=old)

    roll_up(now=now)

    expected = Counter()
    for e in OutcomeEvent.objects.filter(brand=brand):
        hour = e.received_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        expected[(hour, e.endpoint, e.outcome, e.is_test)] += 1
    assert hourly(brand) == expected


def test_running_it_again_changes_nothing(brand, make_event, now, old):
    for _ in range(4):
        make_event(brand, recorded_at=old)
    roll_up(now=now)
    first = daily(brand)

    again = roll_up(now=now)

    assert again.events == 0 and again.batches == 0
    assert daily(brand) == first == daily_from_log(brand)


def test_new_events_add_to_existing_counts(brand, make_event, now, old):
    make_event(brand, ago=timedelta(hours=2), recorded_at=old)
    roll_up(now=now)
    make_event(brand, ago=timedelta(hours=2), recorded_at=old)
    make_event(brand, ago=timedelta(hours=2), recorded_at=old)

    roll_up(now=now)

    assert daily(brand) == daily_from_log(brand)
    assert sum(daily(brand).values()) == 3


def test_a_late_replayed_event_lands_on_the_day_it_was_received(brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=1), recorded_at=old)
    roll_up(now=now)
    # Replayed from the spool today, received ten days ago: a new id, an old received_at.
    make_event(brand, Outcome.NO_ATTRIBUTION, ago=timedelta(days=10), recorded_at=old)

    roll_up(now=now)

    ten_days_ago = (now - timedelta(days=10)).astimezone(UTC).date()
    assert daily(brand)[(ten_days_ago, "order_confirmation", "no_attribution", False)] == 1
    assert daily(brand) == daily_from_log(brand)


def test_it_leaves_events_inside_the_safety_lag_for_later(brand, make_event, now, old):
    make_event(brand, recorded_at=old)
    young = make_event(brand, recorded_at=now - SAFETY_LAG + timedelta(seconds=1))
    # Recorded earlier than `young` but with a higher id: must wait too, so nothing is skipped.
    later_id = make_event(brand, recorded_at=old)

    result = roll_up(now=now)

    assert result.events == 1
    assert watermark() == young.pk - 1
    assert sum(daily(brand).values()) == 1

    roll_up(now=now + SAFETY_LAG)

    assert watermark() == later_id.pk
    assert daily(brand) == daily_from_log(brand)


def test_it_works_in_batches(brand, make_event, now, old):
    for i in range(11):
        make_event(brand, ago=timedelta(hours=i), recorded_at=old)

    result = roll_up(now=now, batch_size=3)

    assert result.batches == 4 and result.events == 11 and result.caught_up
    assert daily(brand) == daily_from_log(brand)


def test_max_batches_bounds_the_work(brand, make_event, now, old):
    for _ in range(7):
        make_event(brand, recorded_at=old)

    result = roll_up(now=now, batch_size=3, max_batches=1)

    assert result.batches == 1 and result.events == 3 and not result.caught_up
    assert sum(daily(brand).values()) == 3


def test_events_without_a_brand_move_the_watermark_but_count_nowhere(brand, make_event, now, old):
    make_event(None, Outcome.UNRESOLVED_DOMAIN, recorded_at=old)
    last = make_event(brand, recorded_at=old)

    result = roll_up(now=now)

    assert result.events == 1
    assert watermark() == last.pk
    assert DailyOutcomeCount.objects.count() == 1


def test_brands_are_counted_apart(brand, other_brand, make_event, now, old):
    make_event(brand, recorded_at=old)
    make_event(other_brand, recorded_at=old)
    make_event(other_brand, recorded_at=old)

    roll_up(now=now)

    assert sum(daily(brand).values()) == 1
    assert sum(daily(other_brand).values()) == 2


def test_counts_read_by_the_overview_are_exact_before_and_after_rolling_up(brand, make_event, now, old):
    for i in range(6):
        make_event(brand, ago=timedelta(days=i % 3, hours=1), recorded_at=old)
    roll_up(now=now)
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, ago=timedelta(days=1))  # not rolled up yet
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=20))  # late, not rolled up yet
    today = now.astimezone(UTC).date()
    period = periods.days_period("30d", today - timedelta(days=29), today)

    def shown():
        counts = Counter()
        for row in queries.outcome_counts(brand, period):
            counts[(row.bucket, row.endpoint, row.outcome, row.is_test)] += row.count
        return counts

    before = shown()
    assert before == daily_from_log(brand)
    roll_up(now=now + SAFETY_LAG * 2)
    assert shown() == before


def test_the_command_rolls_up_and_prints_a_summary(brand, make_event, old, capsys):
    make_event(brand, recorded_at=old)
    make_event(brand, recorded_at=old)

    call_command("rollup_outcomes")

    out = capsys.readouterr().out.strip()
    assert out.startswith("Rolled up 2 outcome events in 1 batches;")
    assert "caught up" in out
    assert sum(daily(brand).values()) == 2


@pytest.mark.django_db(transaction=True)
def test_an_overview_roll_up_gives_way_to_a_running_one(postgres_only, brand, make_event, now, old):
    make_event(brand, recorded_at=old)
    RollupWatermark.objects.get_or_create(pk=WATERMARK_PK)
    locked, release = threading.Event(), threading.Event()

    def hold_the_lock():
        try:
            with transaction.atomic():
                RollupWatermark.objects.select_for_update().get(pk=WATERMARK_PK)
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert locked.wait(10)
        result = roll_up(now=now, wait=False)
    finally:
        release.set()
        holder.join()

    assert result.skipped and result.events == 0
    assert roll_up(now=now).events == 1


def test_it_counts_how_many_events_of_each_count_carry_a_warning(brand, make_event, now, old):
    make_event(brand, Outcome.TRACKED, warnings=["returnWindowClosesAt unreadable"], recorded_at=old)
    make_event(brand, Outcome.TRACKED, recorded_at=old)
    make_event(brand, Outcome.TRACKED, warnings=["a", "b"], recorded_at=old)  # one event, however many
    roll_up(now=now)
    make_event(brand, Outcome.TRACKED, warnings=["late"], recorded_at=old)
    roll_up(now=now)  # added to the same day's and hour's row

    [day] = DailyOutcomeCount.objects.filter(brand=brand)
    [hour] = HourlyOutcomeCount.objects.filter(brand=brand)
    assert (day.count, day.warned) == (hour.count, hour.warned) == (4, 3)
