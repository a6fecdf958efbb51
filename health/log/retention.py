"""Retention of the outcome log: raw events go after a while, their daily counts stay.

Events are rolled up before anything is deleted, and only events at or below the roll-up watermark
are deleted, so every deleted event is already in the daily counts.

On PostgreSQL, where the log is partitioned by month (health.log.partitions), a month goes whole once
it lies entirely before the cutoff and the roll-up has counted all of it: detached (the log is locked for
a catalog change that costs the same at 1k events and at 100M), then dropped apart. Events are therefore kept from the cutoff back to
the start of its month. The DEFAULT partition (events of months without a partition: old events replayed)
is small; its old rows are deleted by one statement.

Elsewhere (SQLite) deletes go by primary-key ranges in short transactions, so a large prune never holds
one long lock. An event replayed long after it was received (an old received_at, a new id) can sit past
the range walked today; a later prune takes it.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.utils import timezone

from health.log import partitions
from health.log.models import HourlyOutcomeCount, OutcomeEvent, RefusedDeliveryCount, UnresolvedHostCount
from health.log.rollup import roll_up

PRUNE_BATCH_SIZE = 5000
# The hourly counts serve the overview's rolling 24 hours and the alert rules, which compare the same
# hours of the last 7 days (health.alerts.events.facts).
HOURLY_KEEP = timedelta(days=9)
# The counts of events of no brand over their address's limit, per host and hour: a month of who sends.
UNRESOLVED_HOSTS_KEEP = timedelta(days=30)


@dataclass
class PruneResult:
    deleted: int = 0
    batches: int = 0
    rolled_up: int = 0
    kept_unrolled: int = 0  # old events a replay wrote moments ago: the next prune takes them
    hourly_deleted: int = 0
    unresolved_hosts_deleted: int = 0
    months_dropped: list[str] = field(default_factory=list)  # partitions dropped whole (PostgreSQL)


def prune(
    *, before: datetime, batch_size: int = PRUNE_BATCH_SIZE, now: datetime | None = None
) -> PruneResult:
    """Delete events received before `before` that are already counted; return what was done."""
    now = now or timezone.now()
    rolled = roll_up(now=now)
    result = PruneResult(rolled_up=rolled.events)
    watermark = rolled.watermark
    if partitions.partitioned():
        _drop_months(before, watermark, result)
    else:
        _delete_walk(before, watermark, batch_size, result)
    result.hourly_deleted, _ = HourlyOutcomeCount.objects.filter(hour__lt=now - HOURLY_KEEP).delete()
    result.unresolved_hosts_deleted, _ = UnresolvedHostCount.objects.filter(
        hour__lt=now - UNRESOLVED_HOSTS_KEEP
    ).delete()
    RefusedDeliveryCount.objects.filter(hour__lt=now - UNRESOLVED_HOSTS_KEEP).delete()
    return result


def _drop_months(before: datetime, watermark: int, result: PruneResult) -> None:
    for name in partitions.detached_months():
        partitions.drop_detached(name)
        result.months_dropped.append(name)
    for month in partitions.monthly_partitions():
        if datetime.combine(month.ends, datetime.min.time(), UTC) > before:
            break  # oldest first: this month and the later ones are (partly) kept
        if partitions.holds_unrolled(month.name, watermark):
            starts, ends = (datetime.combine(d, datetime.min.time(), UTC) for d in (month.starts, month.ends))
            result.kept_unrolled += OutcomeEvent.objects.filter(
                received_at__gte=starts, received_at__lt=ends, id__gt=watermark
            ).count()
            continue
        result.deleted += partitions.estimated_rows(month.name)
        partitions.drop_month(month)
        result.months_dropped.append(month.name)
        result.batches += 1
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {partitions.DEFAULT} WHERE received_at < %s AND id <= %s", [before, watermark]
        )
        result.deleted += cursor.rowcount


def _delete_walk(before: datetime, watermark: int, batch_size: int, result: PruneResult) -> None:
    old = OutcomeEvent.objects.filter(received_at__lt=before)
    # Ids follow arrival, so old events sit at the low end: walk up from the lowest id at least to the
    # newest old event (an index probe on received_at), and on while ranges still hold old events.
    newest_old = old.order_by("-received_at").values_list("id", flat=True).first() or 0
    start = OutcomeEvent.objects.order_by("id").values_list("id", flat=True).first()
    while start is not None and start <= watermark:
        end = min(start + batch_size, watermark + 1)
        deleted, _ = old.filter(id__gte=start, id__lt=end).delete()
        result.deleted += deleted
        result.batches += 1
        if not deleted and end > newest_old:
            if OutcomeEvent.objects.filter(id__gte=start, id__lt=end).exists():
                break  # only recent events here: past the old ones
            # A gap in the ids: jump to the next event.
            start = (
                OutcomeEvent.objects.filter(id__gte=end).order_by("id").values_list("id", flat=True).first()
            )
            continue
        start = end
    result.kept_unrolled = old.filter(id__gt=watermark).count()
