"""Convert the commissions never converted into their brands' reporting currencies, each at its own order's
date (attribution.fx.backfill; migration 0023 ran it once)."""

from django.core.management.base import BaseCommand

from attribution.fx import backfill


class Command(BaseCommand):
    help = (
        "Convert each commission stored before currency conversion existed, at the rates of its order's date; "
        "with --retry also those that had no rate. A converted commission is never converted again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--retry", action="store_true", help="also those that had no rate before")

    def handle(self, *args, retry, **options):
        converted, missing = backfill.convert_unconverted(retry=retry)
        self.stdout.write(
            f"Converted {converted} commissions; {missing} have no rate (their reason is kept)."
        )
