"""On PostgreSQL the outcome log is range-partitioned by month on received_at (docs/scaling.md, "A
partitioned outcome log"): months are made ahead, an event of a month without a partition is kept in the
DEFAULT partition, and retention drops whole months once the roll-up has counted them."""

from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection

from attribution.outcomes import Outcome
from health.log import partitions
from health.log.models import DailyOutcomeCount, OutcomeEvent
from health.log.retention import prune
from health.log.rollup import roll_up

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite keeps a plain table (tests/health/log/test_prune.py)")


def where(event) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tableoid::regclass::text FROM health_outcomeevent WHERE id = %s", [event.pk])
        return cursor.fetchone()[0]


def month_of(moment: datetime) -> date:
    return date(moment.year, moment.month, 1)


def test_the_outcome_log_is_a_table_range_partitioned_by_month_on_received_at():
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT p.partstrat, a.attname FROM pg_partitioned_table p
               JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
               WHERE p.partrelid = 'health_outcomeevent'::regclass"""
        )
        assert cursor.fetchone() == ("r", "received_at")
    months = [p.starts for p in partitions.monthly_partitions()]
    this_month = month_of(datetime.now(UTC))
    ahead = [this_month]
    for _ in range(partitions.MONTHS_AHEAD):
        ahead.append(partitions.next_month(ahead[-1]))
    assert set(ahead) <= set(months)
    assert all(
        b.starts == a.ends
        for a, b in zip(
            partitions.monthly_partitions()[:-1], partitions.monthly_partitions()[1:], strict=True
        )
    )


def test_an_event_lands_in_its_month(brand, make_event, now):
    event = make_event(brand)

    assert where(event) == partitions.partition_name(month_of(event.received_at))


def test_an_old_event_of_a_month_without_a_partition_is_kept_in_the_default_partition(brand, make_event, now):
    replayed = make_event(brand, received_at=datetime(2019, 3, 14, 12, tzinfo=UTC), order_id="replayed-2019")

    assert where(replayed) == partitions.DEFAULT
    assert OutcomeEvent.objects.get(order_id="replayed-2019").pk == replayed.pk


def test_making_a_month_moves_its_events_out_of_the_default_partition(brand, make_event):
    replayed = make_event(brand, received_at=datetime(2019, 3, 14, 12, tzinfo=UTC))

    partitions.create_month(date(2019, 3, 1))

    assert where(replayed) == "health_outcomeevent_p2019_03"
    assert OutcomeEvent.objects.filter(pk=replayed.pk).exists()


def brin_options() -> dict[str, list | None]:
    """Each partition's share of the log's BRIN index on received_at, with its options."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT index.indrelid::regclass::text, child.reloptions FROM pg_inherits link
            JOIN pg_index index ON index.indexrelid = link.inhrelid JOIN pg_class child ON child.oid = link.inhrelid
            WHERE link.inhparent = to_regclass(%s)""",
            [partitions.TIME_BRIN],
        )
        return dict(cursor.fetchall())


def test_every_month_s_brin_index_summarizes_its_ranges_as_they_fill():
    partitions.create_month(date(2019, 3, 1))

    options = brin_options()
    assert "health_outcomeevent_p2019_03" in options  # made now
    assert partitions.DEFAULT in options  # made by the migrations
    assert all(value == ["autosummarize=on"] for value in options.values()), options


def test_the_months_ahead_are_made_when_missing_and_only_then():
    last = partitions.monthly_partitions()[-1]
    partitions.drop_month(last)

    made = partitions.ensure_partitions()

    assert made == [last.name]
    assert partitions.ensure_partitions() == []


def daily_counts() -> Counter:
    return Counter({(r.brand_id, r.day, r.outcome): r.count for r in DailyOutcomeCount.objects.all()})


@pytest.fixture
def old_month():
    """The oldest monthly partition: a month wholly before any cutoff used below."""
    return partitions.monthly_partitions()[0]


def test_retention_drops_whole_months_before_the_cutoff_and_the_counts_stay(
    brand, make_event, now, old_month
):
    in_old_month = datetime.combine(old_month.starts, datetime.min.time(), UTC) + timedelta(days=3)
    for _ in range(3):
        make_event(brand, Outcome.TRACKED, received_at=in_old_month, recorded_at=now - timedelta(hours=1))
    make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(days=1), recorded_at=now - timedelta(hours=1))
    roll_up(now=now)
    counts = daily_counts()

    result = prune(
        before=datetime.combine(old_month.ends, datetime.min.time(), UTC) + timedelta(days=1), now=now
    )

    assert result.months_dropped == [old_month.name]
    assert old_month.name not in [p.name for p in partitions.monthly_partitions()]
    assert list(OutcomeEvent.objects.values_list("outcome", flat=True)) == ["duplicate_order"]
    assert daily_counts() == counts


def test_a_month_still_holding_events_the_roll_up_has_not_counted_is_kept(brand, make_event, now, old_month):
    in_old_month = datetime.combine(old_month.starts, datetime.min.time(), UTC) + timedelta(days=3)
    make_event(
        brand, received_at=in_old_month, order_id="just-replayed"
    )  # recorded now: inside the roll-up's lag

    result = prune(before=datetime.combine(old_month.ends, datetime.min.time(), UTC), now=now)

    assert result.months_dropped == [] and result.kept_unrolled == 1
    assert OutcomeEvent.objects.filter(order_id="just-replayed").exists()


def test_old_events_in_the_default_partition_go_once_counted(brand, make_event, now):
    make_event(brand, received_at=datetime(2019, 3, 14, tzinfo=UTC), recorded_at=now - timedelta(hours=1))
    make_event(brand, received_at=datetime(2019, 4, 1, tzinfo=UTC), order_id="not-yet-counted")

    result = prune(before=now - timedelta(days=400), now=now)

    assert result.deleted == 1
    assert list(OutcomeEvent.objects.values_list("order_id", flat=True)) == ["not-yet-counted"]


def test_a_month_detached_but_not_dropped_is_dropped_by_the_next_prune(brand, make_event, now, old_month):
    # The log is locked only while a month is detached; its files go in a transaction of their own, so a
    # prune stopped in between leaves a detached month, which the next prune finds and drops.
    partitions.detach_month(old_month)
    assert partitions.detached_months() == [old_month.name]

    result = prune(before=now - timedelta(days=400), now=now)

    assert old_month.name in result.months_dropped
    assert partitions.detached_months() == []
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [old_month.name])
        assert cursor.fetchone()[0] is None
