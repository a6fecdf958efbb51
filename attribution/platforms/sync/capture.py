"""The daily capture a sync measures (docs/health.md, "Capture"): of a connection's orders of each day (the
shop's paid, non-test orders, in the shop's time zone), how many had arrived live, by the platform's webhook or by
the order confirmation only, and how many only the sync brought. Counted from the synced orders (each order once,
as the first run that read it found it), so overlapping windows and a second sync never count an order twice.
"""

from collections import Counter
from datetime import datetime

from django.db.models import Count

from attribution.models import DailyCapture, SyncedOrder
from brands.models import PlatformConnection

Path = SyncedOrder.Path


def measure(connection: PlatformConnection, days: set, *, now: datetime) -> list[DailyCapture]:
    """Rewrite the capture of `days` for `connection`; returns the rows, oldest day first."""
    if not days:
        return []
    counts = Counter()
    # synced_order_day_idx (connection, day, path).
    for row in (
        SyncedOrder.objects.filter(
            connection=connection, is_test=False, day__gte=min(days), day__lte=max(days)
        )
        .values("day", "path")
        .annotate(n=Count("id"))
    ):
        counts[(row["day"], row["path"])] = row["n"]
    rows = []
    for day in sorted(days):
        webhook, confirmation, synced = (
            counts[(day, path)] for path in (Path.WEBHOOK, Path.CONFIRMATION, Path.SYNC)
        )
        row, _ = DailyCapture.objects.update_or_create(
            brand_id=connection.brand_id,
            connection=connection,
            day=day,
            defaults={
                "orders": webhook + confirmation + synced,
                "by_webhook": webhook,
                "by_confirmation": confirmation,
                "by_sync": synced,
                "measured_at": now,
            },
        )
        rows.append(row)
    return rows
