"""The daily capture a sync measures (item 5 of docs/health.md, "Capture"): of a connection's orders of each
day its pages touched (the shop's paid, non-test orders, in the shop's time zone), how many had arrived live,
by the platform's webhook or by the order confirmation only, and how many only the sync brought. Rewritten
whole for those days from what the service holds once the sync has read them, so overlapping windows and a
second sync never count an order twice.
"""

from collections import Counter
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from attribution.models import DailyCapture, Order, RecoveredOrder
from brands.models import PlatformConnection


def measure(
    connection: PlatformConnection, days: set, *, zone: ZoneInfo, now: datetime
) -> list[DailyCapture]:
    """Rewrite the capture of `days` for `connection`; returns the rows, oldest day first."""
    if not days:
        return []
    first, last = min(days), max(days)
    start = datetime.combine(first, time(), tzinfo=zone)
    end = datetime.combine(last + timedelta(days=1), time(), tzinfo=zone)
    recovered_ids = RecoveredOrder.objects.filter(connection=connection, is_test=False).values("order_id")
    by_sync = Counter(
        RecoveredOrder.objects.filter(
            connection=connection, is_test=False, day__gte=first, day__lte=last
        ).values_list("day", flat=True)
    )
    live = Counter()
    # order_brand_time_idx: the brand's orders of the days' range.
    for received_at, via_platform in (
        Order.objects.filter(
            brand_id=connection.brand_id,
            property_id=connection.property_id,
            is_test=False,
            received_at__gte=start,
            received_at__lt=end,
        )
        .exclude(order_id__in=recovered_ids)
        .values_list("received_at", "via_platform")
    ):
        live[(received_at.astimezone(zone).date(), via_platform)] += 1
    rows = []
    for day in sorted(days):
        webhook, confirmation, synced = live[(day, True)], live[(day, False)], by_sync[day]
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


def days_of(rows: list[DailyCapture]) -> list[date]:
    return [row.day for row in rows]
