"""Sync shops' orders through their platforms' APIs in the foreground (attribution.platforms.sync), and print
what each sync found. A finished run's incidents are opened by health, which receives the sync's signal."""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from attribution.models import SyncRun
from attribution.platforms.sync.orchestration import describe_synced, run_sync
from brands.models import PlatformConnection


class Command(BaseCommand):
    help = (
        "Read the orders changed in a window through each shop's platform API and record what the webhooks "
        "missed: one connection (--connection), a brand's connections (--brand) or every one that can be synced. "
        "The window is the next nightly window unless --since (and --until, default now) say otherwise."
    )

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--connection", type=int, help="the connection's id")
        which.add_argument("--brand", type=int, help="the brand's id: each of its connections")
        parser.add_argument(
            "--since", type=iso_datetime, help="the window's start, ISO 8601 (UTC unless an offset)"
        )
        parser.add_argument("--until", type=iso_datetime, help="the window's end, ISO 8601 (default: now)")

    def handle(self, *args, connection=None, brand=None, since=None, until=None, **options):
        if until is not None and since is None:
            raise CommandError("--until needs --since.")
        if since is not None and until is not None and since >= until:
            raise CommandError("--since must be before --until.")
        connections = PlatformConnection.objects.order_by("pk")
        if connection is not None:
            connections = connections.filter(pk=connection)
            if not connections.exists():
                raise CommandError(f"No connection {connection}.")
        elif brand is not None:
            connections = connections.filter(brand_id=brand)
            if not connections.exists():
                raise CommandError(f"Brand {brand} has no connection.")
        else:
            connections = [c for c in connections if c.can_sync()]
        failed = recovered = 0
        for each in connections:
            synced = run_sync(
                each.pk, trigger=SyncRun.Trigger.COMMAND, since=since, until=until, seconds=float("inf")
            )
            self.stdout.write(f"{each.platform} {each.shop_domain}: {describe_synced(synced)}")
            if synced.run is not None:
                synced.run.refresh_from_db()
                recovered += synced.run.recovered
                failed += synced.run.status == SyncRun.Status.FAILED
        count = len(connections) if isinstance(connections, list) else connections.count()
        self.stdout.write(f"Synced {count} connections: {recovered} orders recovered, {failed} syncs failed.")
        if failed:
            raise CommandError(f"{failed} syncs failed: see the lines above.")


def iso_datetime(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an ISO 8601 date or time: {text}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
