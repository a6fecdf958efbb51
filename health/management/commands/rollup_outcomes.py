"""Fold new outcome events into the daily and hourly counts (run from cron, e.g. every minute)."""

from django.core.management.base import BaseCommand

from health.log.rollup import BATCH_SIZE, roll_up


class Command(BaseCommand):
    help = "Fold outcome events not yet counted into the per-day and per-hour counts the overview reads."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="events per transaction")
        parser.add_argument("--max-batches", type=int, default=None, help="stop after this many batches")

    def handle(self, *args, batch_size, max_batches, **options):
        result = roll_up(batch_size=batch_size, max_batches=max_batches)
        state = "caught up" if result.caught_up else "more to fold"
        self.stdout.write(
            f"Rolled up {result.events} outcome events in {result.batches} batches; "
            f"watermark at event {result.watermark} ({state})."
        )
