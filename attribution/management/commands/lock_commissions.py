"""Lock live commissions whose return window closed (run from cron, e.g. every 5 minutes)."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from attribution.billing.writers import LOCK_BATCH_SIZE, due_commissions, lock_due_commissions


class Command(BaseCommand):
    help = (
        "Move pending live commissions whose order's return window has closed to locked, onto their brand's "
        "statement of this month. Idempotent; safe to run twice at once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size", type=int, default=LOCK_BATCH_SIZE, help="commissions per transaction"
        )
        parser.add_argument("--max-batches", type=int, default=None, help="stop after this many batches")

    def handle(self, *args, batch_size, max_batches, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")
        now = timezone.now()
        run = lock_due_commissions(now=now, batch_size=batch_size, max_batches=max_batches)
        left = due_commissions(now).count()
        self.stdout.write(
            f"Locked {run.locked} commissions in {run.batches} batches onto {len(run.statements)} statements; "
            f"{left} still due (held by another transaction or past --max-batches)."
        )
