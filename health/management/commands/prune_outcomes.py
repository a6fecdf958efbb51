"""Delete raw outcome events past retention; the daily counts keep their figures."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from attribution.http.throttles import prune_counters
from health.log.retention import HOURLY_KEEP, PRUNE_BATCH_SIZE, UNRESOLVED_HOSTS_KEEP, prune


class Command(BaseCommand):
    help = "Delete outcome events received more than --older-than days ago, after rolling them up."

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=int, required=True, metavar="DAYS")
        parser.add_argument("--batch-size", type=int, default=PRUNE_BATCH_SIZE, help="ids per DELETE")

    def handle(self, *args, older_than, batch_size, **options):
        if older_than < 1:
            raise CommandError("--older-than must be at least 1 day.")
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")
        cutoff = timezone.now() - timedelta(days=older_than)
        result = prune(before=cutoff, batch_size=batch_size)
        counters = prune_counters()
        self.stdout.write(
            f"Deleted {result.deleted} outcome events received before {cutoff:%Y-%m-%d %H:%M} UTC "
            f"in {result.batches} batches{_months(result.months_dropped)} ({result.rolled_up} rolled up first, "
            f"{result.kept_unrolled} too recent to roll up kept); daily counts kept; "
            f"{result.hourly_deleted} hourly counts older than {HOURLY_KEEP.days} days deleted; "
            f"{counters} throttle counters idle for a day deleted; "
            f"{result.unresolved_hosts_deleted} unknown-host counts older than {UNRESOLVED_HOSTS_KEEP.days} days deleted."
        )


def _months(dropped: list[str]) -> str:
    return f", {len(dropped)} whole months dropped ({', '.join(dropped)})" if dropped else ""
