"""Find rows whose foreign keys the database does not check and that name no existing row."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from health.references import dangling, describe


class Command(BaseCommand):
    help = (
        "Check the references the database does not check on every write (health.references): the rows "
        "of the last --days days, or --all. Exits with an error when a row names no existing row."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=2, help="rows dated within the last DAYS (default 2)")
        parser.add_argument("--all", action="store_true", help="every row, however old")

    def handle(self, *args, days, all, **options):
        if days < 1:
            raise CommandError("--days must be at least 1.")
        found = dangling(since=None if all else timezone.now() - timedelta(days=days))
        if found:
            raise CommandError(describe(found))
        self.stdout.write(describe(found))
