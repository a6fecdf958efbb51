"""What the sync's pages read: a brand's runs, newest first, with their connections; one run's orders the sync
brought; the capture per day and path across the brand's connections."""

from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Count, Exists, OuterRef, Q, Sum

from attribution.models import DailyCapture, Order, SyncedOrder, SyncRun
from attribution.outcomes import Outcome
from brands.models import Brand

RUNS_SHOWN = 100


def runs_of(brand: Brand, *, connection_id: int | None = None) -> list[SyncRun]:
    # sync_run_brand_time_idx (brand, -started_at).
    runs = SyncRun.objects.filter(brand=brand).select_related("connection").order_by("-started_at", "-pk")
    if connection_id is not None:
        runs = runs.filter(connection_id=connection_id)
    return list(runs[:RUNS_SHOWN])


def run_of(brand_ids, pk: int) -> SyncRun | None:
    """`brand_page`'s `find`: the run if its brand is one the user may see."""
    return SyncRun.objects.select_related("connection", "brand").filter(pk=pk, brand__in=brand_ids).first()


def recovered_orders(run: SyncRun) -> list[SyncedOrder]:
    # The run's foreign key index: its synced orders, those it brought.
    return list(SyncedOrder.objects.filter(run=run, path=SyncedOrder.Path.SYNC).order_by("day", "order_id"))


@dataclass(frozen=True)
class LiveShareDay:
    """Of the brand's shops' orders of a day, how many arrived live by each path and how many only by the sync."""

    day: date
    orders: int
    by_webhook: int
    by_confirmation: int
    by_sync: int

    @property
    def percent(self) -> int:
        """The share that arrived live (by the webhook or the order confirmation), in whole percent."""
        return round(100 * (self.orders - self.by_sync) / self.orders) if self.orders else 100


def live_share_by_day(brand: Brand, *, first_day: date, last_day: date) -> list[LiveShareDay]:
    """Of the brand's shops' orders, per day (the shops' days), those that arrived live by each path and those
    only the sync brought, newest first; days with no order are left out."""
    # daily_capture_brand_day_idx (brand, -day).
    rows = (
        DailyCapture.objects.filter(brand=brand, day__gte=first_day, day__lte=last_day, orders__gt=0)
        .values("day")
        .annotate(
            orders=Sum("orders"),
            by_webhook=Sum("by_webhook"),
            by_confirmation=Sum("by_confirmation"),
            by_sync=Sum("by_sync"),
        )
        .order_by("-day")
    )
    return [LiveShareDay(**row) for row in rows]


def brought_by_sync() -> Exists:
    """An order the sync recorded (its SyncedOrder says `sync`): it has via_platform, yet no webhook brought it."""
    # synced_order_once (brand, connection, order_id, is_test): the brand's part, then the order's rows.
    return Exists(
        SyncedOrder.objects.filter(
            brand_id=OuterRef("brand_id"),
            order_id=OuterRef("order_id"),
            is_test=OuterRef("is_test"),
            path=SyncedOrder.Path.SYNC,
        )
    )


def recovered_by_brand(
    brand_ids: list[int], *, since: datetime, until: datetime, is_test: bool
) -> dict[int, tuple[int, int]]:
    """By brand, the orders the sync recorded between `since` and `until` and how many of them were tracked:
    their outcome rows are on the sync's endpoint, no order endpoint, so the pages' order figures add these."""
    # order_brand_time_idx (brand, -received_at): the period's orders no live path brought.
    rows = (
        Order.objects.filter(
            brand_id__in=brand_ids,
            is_test=is_test,
            received_at__gte=since,
            received_at__lt=until,
            via_platform=True,
            via_api=False,
        )
        .filter(brought_by_sync())
        .order_by()
        .values("brand_id")
        .annotate(n=Count("id"), tracked=Count("id", filter=Q(outcome=Outcome.TRACKED)))
    )
    return {row["brand_id"]: (row["n"], row["tracked"]) for row in rows}


def recovery_of(order: Order) -> SyncedOrder | None:
    """For an order the sync recorded, its SyncedOrder: when it was placed in the shop and when the sync found
    it (`seen_at`); None for the others."""
    if not order.via_platform or order.via_api:
        return None
    # synced_order_once (brand, connection, order_id, is_test): the brand's part, then the order's row.
    return (
        SyncedOrder.objects.filter(
            brand_id=order.brand_id,
            order_id=order.order_id,
            is_test=order.is_test,
            path=SyncedOrder.Path.SYNC,
        )
        .only("placed_at", "seen_at", "run_id")
        .first()
    )
