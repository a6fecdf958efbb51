"""prune_outcomes: raw events past retention go, in batches; the daily counts keep their figures.

The exact cutoff and the DELETE walk by id ranges are SQLite's way (a plain table). On PostgreSQL the log
is partitioned by month and retention drops whole months: tests/health/log/test_partitions.py."""

from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from attribution.outcomes import Outcome
from health.log import partitions
from health.log.models import DailyOutcomeCount, HourlyOutcomeCount, OutcomeEvent
from health.log.retention import prune
from health.log.rollup import roll_up

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _a_plain_table(db):
    if partitions.partitioned():
        pytest.skip("PostgreSQL drops whole months (tests/health/log/test_partitions.py)")


def daily_counts() -> Counter:
    return Counter(
        {
            (r.brand_id, r.day, r.endpoint, r.outcome, r.is_test): r.count
            for r in DailyOutcomeCount.objects.all()
        }
    )


def test_it_deletes_old_events_and_keeps_recent_ones(brand, other_brand, make_event, now, old):
    make_event(other_brand, ago=timedelta(days=45), recorded_at=old, order_id="globex-old")
    for day in (40, 35, 31):
        make_event(brand, ago=timedelta(days=day), recorded_at=old, order_id=f"old-{day}")
    make_event(brand, ago=timedelta(days=29), recorded_at=old, order_id="recent-29")
    make_event(brand, ago=timedelta(hours=2), recorded_at=old, order_id="recent-today")

    result = prune(before=now - timedelta(days=30), now=now)

    assert result.deleted == 4
    assert sorted(OutcomeEvent.objects.values_list("order_id", flat=True)) == ["recent-29", "recent-today"]


def test_the_daily_counts_stay_exactly_as_they_were(brand, make_event, now, old):
    for day in range(0, 60, 3):
        make_event(brand, Outcome.TRACKED, ago=timedelta(days=day), recorded_at=old)
        make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(days=day), recorded_at=old)
    roll_up(now=now)
    before = daily_counts()

    prune(before=now - timedelta(days=30), now=now)

    assert daily_counts() == before
    assert sum(before.values()) == 40


def test_it_rolls_up_first_so_nothing_is_lost_from_the_counts(brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=50), recorded_at=old)
    make_event(brand, ago=timedelta(days=40), recorded_at=old)

    result = prune(before=now - timedelta(days=30), now=now)

    assert result.rolled_up == 2 and result.deleted == 2
    assert sum(daily_counts().values()) == 2


def test_events_the_roll_up_has_not_reached_are_kept(brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=50), recorded_at=old)
    # Replayed a moment ago with its original, old receipt time: still inside the safety lag.
    make_event(brand, ago=timedelta(days=45), order_id="just-replayed")

    result = prune(before=now - timedelta(days=30), now=now)

    assert result.deleted == 1 and result.kept_unrolled == 1
    assert list(OutcomeEvent.objects.values_list("order_id", flat=True)) == ["just-replayed"]


def test_an_old_event_replayed_after_recent_ones_waits_for_a_later_prune(brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=31), recorded_at=old, order_id="old")
    for i in range(3):
        make_event(brand, ago=timedelta(days=1), recorded_at=old, order_id=f"recent-{i}")
    make_event(brand, ago=timedelta(days=60), recorded_at=old, order_id="replayed")

    first = prune(before=now - timedelta(days=30), batch_size=2, now=now)
    # Once the events before it are old too, the walk reaches the replayed one.
    later = prune(before=now, batch_size=2, now=now)

    assert first.deleted == 1
    assert later.deleted == 4
    assert OutcomeEvent.objects.count() == 0


def test_a_gap_in_the_ids_does_not_stop_the_walk(brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=35), recorded_at=old)
    gone = [make_event(brand, ago=timedelta(days=1), recorded_at=old) for _ in range(6)]
    OutcomeEvent.objects.filter(pk__in=[e.pk for e in gone]).delete()
    make_event(brand, ago=timedelta(days=50), recorded_at=old, order_id="after-the-gap")

    result = prune(before=now - timedelta(days=30), batch_size=2, now=now)

    assert result.deleted == 2
    assert OutcomeEvent.objects.count() == 0


def test_it_deletes_by_id_ranges_in_batches(brand, make_event, now, old):
    for i in range(23):
        make_event(brand, ago=timedelta(days=40, minutes=i), recorded_at=old)
    make_event(brand, ago=timedelta(days=1), recorded_at=old)

    result = prune(before=now - timedelta(days=30), batch_size=5, now=now)

    assert result.deleted == 23 and result.batches == 5
    assert OutcomeEvent.objects.count() == 1


def test_hourly_counts_older_than_nine_days_go_too(brand, make_event, now, old):
    # The alert rules compare the same hours of the 7 days before the last 24 hours.
    make_event(brand, ago=timedelta(days=10), recorded_at=old)
    make_event(brand, ago=timedelta(days=8), recorded_at=old)
    roll_up(now=now)

    result = prune(before=now - timedelta(days=30), now=now)

    assert result.hourly_deleted == 1
    assert HourlyOutcomeCount.objects.count() == 1
    assert HourlyOutcomeCount.objects.get().hour < now - timedelta(days=7)


def test_the_command_ends_with_a_one_line_summary(brand, make_event, now, old, capsys):
    make_event(brand, ago=timedelta(days=100), recorded_at=old)
    make_event(brand, ago=timedelta(days=1), recorded_at=old)

    call_command("prune_outcomes", "--older-than", "90")

    out = capsys.readouterr().out.strip()
    assert len(out.splitlines()) == 1
    assert out.startswith("Deleted 1 outcome events received before ")
    assert "daily counts kept" in out
    assert OutcomeEvent.objects.count() == 1


def test_the_command_refuses_a_retention_under_one_day(db):
    with pytest.raises(CommandError):
        call_command("prune_outcomes", "--older-than", "0")
