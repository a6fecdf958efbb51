"""Reads behind the overview (its periods are health.pages.periods, which other pages share). Every function
takes the brand it reads for (health.pages.access decides which brands a user may read); the events list, an
event and the export read through health.pages.events.queries.

The overview never scans the outcome log: it reads the rolled-up counts plus the few events above the
roll-up watermark, in one snapshot so that a roll-up committing meanwhile is counted exactly once.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDate, TruncHour

from attribution.models import AmountChange, Commission, CommissionStateChange, Order, PlatformDelivery
from attribution.outcomes import Outcome
from attribution.outcomes.endpoints import ORDER_ENDPOINTS, Endpoint
from brands.models import Brand, PlatformConnection
from health.log.models import (
    DailyOutcomeCount,
    HourlyOutcomeCount,
    OutcomeEvent,
    RefusedDeliveryCount,
    RollupWatermark,
)
from health.log.probes import newest_first
from health.log.rollup import WATERMARK_PK
from health.log.snapshot import consistent_snapshot
from health.pages.periods import Period
from health.pages.sync.queries import brought_by_sync, recovered_by_brand

# A brand "usually sends orders" when it sent live order confirmations on this many of the 7 days
# before today; such a brand silent for SILENCE gets a warning on the overview.
USUAL_SENDER_DAYS = 4
SILENCE = timedelta(hours=24)


@dataclass(frozen=True)
class CountRow:
    bucket: object  # date, or datetime of the hour's start
    endpoint: str
    outcome: str
    is_test: bool
    count: int
    warned: int = 0  # how many of `count` carry a warning


def outcome_counts(brand: Brand, period: Period) -> list[CountRow]:
    """Exact event counts of `brand` per bucket, endpoint, outcome and namespace in `period`."""
    keys = ("endpoint", "outcome", "is_test")
    with consistent_snapshot():
        watermark = (
            RollupWatermark.objects.filter(pk=WATERMARK_PK).values_list("last_event_id", flat=True).first()
            or 0
        )
        if period.by_hour:
            rolled = HourlyOutcomeCount.objects.filter(
                brand=brand, hour__gte=period.start, hour__lt=period.end
            ).values(*keys, "count", "warned", bucket=F("hour"))
            trunc = TruncHour("received_at", tzinfo=UTC)
        else:
            rolled = DailyOutcomeCount.objects.filter(
                brand=brand, day__gte=period.first_day, day__lte=period.last_day
            ).values(*keys, "count", "warned", bucket=F("day"))
            trunc = TruncDate("received_at", tzinfo=UTC)
        rolled = list(rolled)
        # Served by the primary key: only the events the roll-up has not reached yet.
        tail = list(
            OutcomeEvent.objects.filter(
                id__gt=watermark, brand=brand, received_at__gte=period.start, received_at__lt=period.end
            )
            .order_by()
            .annotate(bucket=trunc)
            .values("bucket", *keys)
            .annotate(count=Count("id"), warned=Count("id", filter=Q(has_warnings=True)))
        )
    return [
        CountRow(r["bucket"], r["endpoint"], r["outcome"], r["is_test"], r["count"], r["warned"])
        for r in rolled + tail
    ]


@dataclass(frozen=True)
class IntegrationStatus:
    last_order: dict | None
    last_tracked: dict | None
    last_cancel: dict | None
    last_update: dict | None
    last_test: dict | None
    usual_days: int  # days of the 7 before today with live order confirmations
    silent: bool  # a usual sender that sent no order confirmation for SILENCE


def integration_status(brand: Brand, now: datetime) -> IntegrationStatus:
    """The latest event of each kind (one index probe each) and whether orders stopped arriving."""
    # One probe each on the log's (brand, column, -received_at) index for it (health.log.probes).
    events = OutcomeEvent.objects.filter(brand=brand)
    live = events.filter(is_test=False)
    fields = ("id", "received_at", "outcome", "order_id", "endpoint")

    def newest(queryset, **equals):
        return newest_first(queryset, **equals).values(*fields).first()

    last_order = newest(live, endpoint=Endpoint.ORDER_CONFIRMATION)
    # An order is attributed by its order confirmation or by a platform's order webhook (not a tracked cancel).
    last_tracked = newest(live.filter(endpoint__in=ORDER_ENDPOINTS), outcome=Outcome.TRACKED)
    # A cancel or an amount change also comes from a storefront platform (orders/cancelled, a refund, an edit):
    # its event is the one that made the brand's newest cancel move or amount change.
    last_cancel = _newer(
        newest(live, endpoint=Endpoint.CANCEL),
        _event_of(
            CommissionStateChange.objects.filter(brand=brand, to_state=Commission.State.CANCELLED),
            brand,
            fields,
        ),
    )
    last_update = _newer(
        newest(live, endpoint=Endpoint.UPDATE),
        _event_of(AmountChange.objects.filter(brand=brand), brand, fields),
    )
    last_test = newest(events, is_test=True)
    today = now.astimezone(UTC).date()
    usual_days = (
        DailyOutcomeCount.objects.filter(
            brand=brand,
            endpoint=Endpoint.ORDER_CONFIRMATION,
            is_test=False,
            count__gt=0,
            day__gte=today - timedelta(days=7),
            day__lt=today,
        )
        .values("day")
        .distinct()
        .count()
    )
    quiet = last_order is None or last_order["received_at"] < now - SILENCE
    return IntegrationStatus(
        last_order=last_order,
        last_tracked=last_tracked,
        last_cancel=last_cancel,
        last_update=last_update,
        last_test=last_test,
        usual_days=usual_days,
        silent=usual_days >= USUAL_SENDER_DAYS and quiet,
    )


def _event_of(changes, brand: Brand, fields: tuple) -> dict | None:
    """The live event of the newest change in `changes` made by a request (statechange_brand_to_idx or
    amountchange_brand_time_idx, then outcome_request_idx)."""
    request_id = (
        changes.filter(commission__is_test=False)
        .exclude(request_id="")
        .order_by("-changed_at")
        .values_list("request_id", flat=True)
        .first()
    )
    if not request_id:
        return None
    return (
        OutcomeEvent.objects.filter(brand=brand, request_id=request_id, is_test=False)
        .order_by("-received_at")
        .values(*fields)
        .first()
    )


def _newer(*events) -> dict | None:
    found = [event for event in events if event is not None]
    return max(found, key=lambda event: event["received_at"]) if found else None


# --- Storefront platforms ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectionFigures:
    """One connection on the overview: its deliveries in the period, and the brand's orders of its property
    by the paths that saw them (attribution.orders.joins): the capture rate of each path."""

    connection: PlatformConnection
    last_delivery: datetime | None  # the last verified one, whenever it came
    deliveries: int  # verified, in the period
    days: float  # the period's length in days
    # Refused before they were trusted in the period: the rows kept (signatures) and those counted beyond them.
    signature_failures: int
    platform_only: int  # by the platform's webhook alone
    confirmation_only: int
    both: int
    sync_only: int = 0  # recorded by the sync: no webhook and no order confirmation had brought them

    @property
    def per_day(self) -> float:
        return self.deliveries / self.days if self.days else 0.0

    @property
    def orders(self) -> int:
        return self.platform_only + self.confirmation_only + self.both + self.sync_only

    def share(self, n: int) -> float | None:
        return 100 * n / self.orders if self.orders else None

    @property
    def platform_share(self) -> float | None:
        """Orders the platform's webhook brought, of all the orders either path brought."""
        return self.share(self.platform_only + self.both)

    @property
    def confirmation_share(self) -> float | None:
        return self.share(self.confirmation_only + self.both)

    @property
    def sync_share(self) -> float | None:
        return self.share(self.sync_only)


def recovered_orders(brand: Brand, period: Period, *, is_test: bool) -> tuple[int, int]:
    """The orders the sync recorded in `period` and how many of them were tracked: the outcome log counts them
    on the sync's endpoint, which is no order endpoint, so the overview's cards add them from here."""
    counted = recovered_by_brand([brand.pk], since=period.start, until=period.end, is_test=is_test)
    return counted.get(brand.pk, (0, 0))


# The sync records an order under a delivery id of its own ("sync:<run>:record:<order>", attribution.platforms
# .sync.acting): no webhook delivered it, so the webhook's figures leave it out.
SYNC_DELIVERY = "sync:"


def last_delivery(connection: PlatformConnection) -> datetime | None:
    """When the connection's last verified delivery came (platform_delivery_time_idx)."""
    return (
        PlatformDelivery.objects.filter(connection=connection, verified=True)
        .exclude(delivery_id__startswith=SYNC_DELIVERY)
        .order_by("-received_at")
        .values_list("received_at", flat=True)
        .first()
    )


def platform_figures(brand: Brand, period: Period, *, is_test: bool) -> list[ConnectionFigures]:
    """Every connection of `brand` with its figures in `period`; one query when it has none."""
    connections = list(
        brand.platform_connections.select_related("property").order_by("platform", "shop_domain")
    )
    if not connections:
        return []
    # platform_delivery_time_idx (connection, -received_at): each connection's range of the period.
    deliveries = {
        row["connection_id"]: row
        for row in PlatformDelivery.objects.filter(
            connection__in=connections, received_at__gte=period.start, received_at__lt=period.end
        )
        .order_by()
        .values("connection_id")
        .annotate(
            taken=Count("id", filter=Q(verified=True) & ~Q(delivery_id__startswith=SYNC_DELIVERY)),
            refused=Count("id", filter=Q(verified=False)),
        )
    }
    # refused_delivery_hour_unique (brand, connection, hour): the refusals counted beyond the rows kept.
    counted_refusals = dict(
        RefusedDeliveryCount.objects.filter(brand=brand, hour__gte=period.start, hour__lt=period.end)
        .order_by()
        .values("connection_id")
        .annotate(n=Sum("count"))
        .values_list("connection_id", "n")
    )
    last = {c.pk: last_delivery(c) for c in connections}
    # order_brand_time_idx (brand, -received_at): the brand's orders of the period, by property and paths.
    paths = {
        row["property_id"]: row
        for row in Order.objects.filter(
            brand=brand, is_test=is_test, received_at__gte=period.start, received_at__lt=period.end
        )
        .order_by()
        .annotate(synced=brought_by_sync())
        .values("property_id")
        .annotate(
            platform_only=Count("id", filter=Q(via_platform=True, via_api=False, synced=False)),
            sync_only=Count("id", filter=Q(via_platform=True, via_api=False, synced=True)),
            confirmation_only=Count("id", filter=Q(via_platform=False, via_api=True)),
            both=Count("id", filter=Q(via_platform=True, via_api=True)),
        )
    }
    days = (period.end - period.start).total_seconds() / 86400
    figures = []
    for c in connections:
        counted, seen = deliveries.get(c.pk, {}), paths.get(c.property_id, {})
        figures.append(
            ConnectionFigures(
                connection=c,
                last_delivery=last[c.pk],
                deliveries=counted.get("taken", 0),
                days=days,
                signature_failures=counted.get("refused", 0) + counted_refusals.get(c.pk, 0),
                platform_only=seen.get("platform_only", 0),
                confirmation_only=seen.get("confirmation_only", 0),
                both=seen.get("both", 0),
                sync_only=seen.get("sync_only", 0),
            )
        )
    return figures
