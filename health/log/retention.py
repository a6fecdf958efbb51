"""Retention of the outcome log: raw events go after a while, their daily counts stay.

Events are rolled up before anything is deleted, and only events at or below the roll-up watermark
are deleted, so every deleted event is already in the daily counts. Deletes go by primary-key ranges
in short transactions, so a large prune never holds one long lock. An event replayed long after it was
received (an old received_at, a new id) can sit past the range walked today; a later prune takes it.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from health.log.models import HourlyOutcomeCount, OutcomeEvent, UnresolvedHostCount
from health.log.rollup import roll_up

PRUNE_BATCH_SIZE = 5000
# The hourly counts serve the overview's rolling 24 hours and the alert rules, which compare the same
# hours of the last 7 days (health.alerts.facts).
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


def prune(
    *, before: datetime, batch_size: int = PRUNE_BATCH_SIZE, now: datetime | None = None
) -> PruneResult:
    """Delete events received before `before` that are already counted; return what was done."""
    now = now or timezone.now()
    rolled = roll_up(now=now)
    result = PruneResult(rolled_up=rolled.events)
    watermark = rolled.watermark
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
    result.hourly_deleted, _ = HourlyOutcomeCount.objects.filter(hour__lt=now - HOURLY_KEEP).delete()
    result.unresolved_hosts_deleted, _ = UnresolvedHostCount.objects.filter(
        hour__lt=now - UNRESOLVED_HOSTS_KEEP
    ).delete()
    return result
