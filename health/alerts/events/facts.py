"""What the alert rules read, for every brand at once: a few queries per evaluation, whatever the number of
brands (bench/health_pages.py measures 1,000). Background work only: no page reads this.

Counts come from the hourly roll-up plus the events above its watermark, read in one snapshot as the
overview does, so they are exact; the last hour and each brand's last order come from the outcome log
through its indexes (each query names the index it uses).
"""

from datetime import UTC, datetime, timedelta

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncHour

from attribution.durability import spool
from attribution.fx import lookup as fx_lookup
from attribution.models import Reconciliation
from attribution.outcomes.endpoints import NOT_ORDERS, ORDER_ENDPOINTS, Endpoint
from health.alerts.events.rules import (
    ACTION_CODES,
    CAPTURE_HISTORY,
    CAPTURE_MIN_ORDERS,
    CAPTURE_RECENT,
    EARLIER,
    HISTORY_DAYS,
    RECENT,
    SERVICE_CODES,
    SILENCE_STRETCH_CAP,
    BrandFacts,
    CaptureRun,
    ServiceFacts,
    floor_hour,
    is_silence_candidate,
)
from health.alerts.models import AlertRuleSet, Incident
from health.log.models import HourlyOutcomeCount, OutcomeEvent, RollupWatermark
from health.log.probes import newest_first
from health.log.rollup import WATERMARK_PK
from health.log.snapshot import consistent_snapshot

HOUR = timedelta(hours=1)


# The rows silence counts as orders arriving: every order confirmation but one handed to the platform's webhook
# (the webhook's row counts it), and every platform delivery that brought an order. Built when asked: the
# platforms add their endpoints as they register (attribution.outcomes.endpoints.add_platform).
def _orders_arrived() -> Q:
    platforms = [e for e in ORDER_ENDPOINTS if e != Endpoint.ORDER_CONFIRMATION]
    return (Q(endpoint=Endpoint.ORDER_CONFIRMATION) & ~Q(outcome="shopify_handoff")) | (
        Q(endpoint__in=platforms) & ~Q(outcome__in=NOT_ORDERS)
    )


def read_facts(
    brands: QuerySet, rule_sets: dict[int, AlertRuleSet], *, now: datetime
) -> tuple[dict[int, BrandFacts], ServiceFacts]:
    """The facts of every brand in `brands` (rule sets by brand id, defaults where missing) and of the service."""
    with consistent_snapshot():
        facts = {}
        for pk, *lasts in _last_orders(brands, now):
            at, via = newest_order(lasts)
            by_way = {way: when for way, when in zip(ORDER_ENDPOINTS, lasts, strict=True) if when is not None}
            facts[pk] = BrandFacts(pk, last_order_at=at, last_order_via=via, last_order_by_way=by_way)
        service = ServiceFacts()
        _add_last_hour(facts, service, now)
        _add_action_counts(facts, now)
        candidates = [
            pk for pk, f in facts.items() if is_silence_candidate(rule_sets.get(pk) or AlertRuleSet(), f, now)
        ]
        _add_history(facts, candidates, now)
        _add_capture_runs(facts, now)
    # What the servers' last replay runs left waiting (attribution.durability.spool.backlog), not this machine's disk.
    waiting = spool.backlog()
    service.spool_waiting, service.spool_oldest_at = waiting.waiting, waiting.oldest_received_at
    service.newest_rate_day = fx_lookup.newest_day()
    return facts, service


def _last_orders(brands: QuerySet, now: datetime) -> QuerySet:
    """(brand id, then its last live order by each way in, in ORDER_ENDPOINTS' order) for each brand: its last
    order confirmation (any outcome, as before a brand could connect a shop) and its last order from each
    platform's webhook (a delivery that brought an order: not a refused, repeated or ignored one). So a brand
    whose orders arrive by webhook alone is watched too (newest_order picks the newest)."""
    live = OutcomeEvent.objects.filter(brand=OuterRef("pk"), is_test=False, received_at__lte=now)
    probes = {}
    for endpoint in ORDER_ENDPOINTS:
        events = live if endpoint == Endpoint.ORDER_CONFIRMATION else live.exclude(outcome__in=NOT_ORDERS)
        # One probe per brand and way on outcome_brand_endpoint_idx (brand, endpoint, -received_at)
        # (health.log.probes). A platform's probe steps over the deliveries that were no order: a few per
        # order (orders/paid, a redelivery), and refused ones, which are kept only a few an hour.
        probes[str(endpoint)] = Subquery(newest_first(events, endpoint=endpoint).values("received_at")[:1])
    return brands.order_by().annotate(**probes).values_list("pk", *probes)


def newest_order(lasts: tuple) -> tuple[datetime | None, str]:
    """A brand's last order and the way it came, from _last_orders' row less its brand id."""
    found = [(at, via) for at, via in zip(lasts, ORDER_ENDPOINTS, strict=True) if at is not None]
    return max(found, default=(None, ""))


def _add_last_hour(facts: dict[int, BrandFacts], service: ServiceFacts, now: datetime) -> None:
    # One range on received_at (a BRIN index on PostgreSQL): every live event of the last hour, all brands.
    rows = (
        OutcomeEvent.objects.filter(received_at__gt=now - HOUR, received_at__lte=now, is_test=False)
        .order_by()
        .values("brand_id", "endpoint", "outcome")
        .annotate(n=Count("id"))
    )
    for row in rows:
        if row["outcome"] in SERVICE_CODES:
            service.failures_last_hour[row["outcome"]] += row["n"]
        brand_facts = facts.get(row["brand_id"])
        if brand_facts is not None:
            brand_facts.last_hour[(row["endpoint"], row["outcome"])] += row["n"]


def _watermark() -> int:
    return (
        RollupWatermark.objects.filter(pk=WATERMARK_PK).values_list("last_event_id", flat=True).first() or 0
    )


def _add_action_counts(facts: dict[int, BrandFacts], now: datetime) -> None:
    """Needs-your-action outcomes in the rolling 24 hours (the current hour and the 23 before) and in the
    7 days before them."""
    recent_start = floor_hour(now) - (RECENT - HOUR)
    earlier_start = recent_start - EARLIER
    # hourly_count_outcome_idx (outcome, hour) WHERE NOT is_test: only the rare needs-action rows.
    rolled = (
        HourlyOutcomeCount.objects.filter(
            is_test=False, outcome__in=sorted(ACTION_CODES), hour__gte=earlier_start, hour__lte=now
        )
        .order_by()
        .values("brand_id", "outcome")
        .annotate(
            recent=Sum("count", filter=Q(hour__gte=recent_start)),
            earlier=Sum("count", filter=Q(hour__lt=recent_start)),
        )
    )
    for row in rolled:
        brand_facts = facts.get(row["brand_id"])
        if brand_facts is not None:
            brand_facts.action_recent[row["outcome"]] += row["recent"] or 0
            brand_facts.action_earlier[row["outcome"]] += row["earlier"] or 0
    # The events the roll-up has not reached yet: a primary-key range.
    tail = (
        OutcomeEvent.objects.filter(
            id__gt=_watermark(),
            is_test=False,
            outcome__in=sorted(ACTION_CODES),
            received_at__gte=earlier_start,
            received_at__lte=now,
        )
        .order_by()
        .values("brand_id", "outcome", "received_at")
    )
    for row in tail:
        brand_facts = facts.get(row["brand_id"])
        if brand_facts is None:
            continue
        bucket = (
            brand_facts.action_recent if row["received_at"] >= recent_start else brand_facts.action_earlier
        )
        bucket[row["outcome"]] += 1


def _add_history(facts: dict[int, BrandFacts], brand_ids: list[int], now: datetime) -> None:
    """Live orders per hour over the days silence compares with, for silent brands only: order confirmations
    (any outcome) and the platforms' deliveries that brought an order, one order arriving by both ways counted
    once (its confirmation was handed to the webhook: shopify_handoff)."""
    if not brand_ids:
        return
    start = floor_hour(now - SILENCE_STRETCH_CAP - timedelta(days=HISTORY_DAYS))
    end = now - timedelta(days=1)
    for pk in brand_ids:
        facts[pk].history = {}
    # hourly_count_unique (brand, hour, ...): one range per silent brand.
    rows = (
        HourlyOutcomeCount.objects.filter(
            _orders_arrived(),
            brand_id__in=brand_ids,
            is_test=False,
            hour__gte=start,
            hour__lt=end,
        )
        .order_by()
        .values("brand_id", "hour")
        .annotate(n=Sum("count"))
    )
    for row in rows:
        facts[row["brand_id"]].history[row["hour"].astimezone(UTC)] = row["n"]
    # Unrolled events that old are rare (a late replay); counted all the same.
    tail = (
        OutcomeEvent.objects.filter(
            _orders_arrived(),
            id__gt=_watermark(),
            brand_id__in=brand_ids,
            is_test=False,
            received_at__gte=start,
            received_at__lt=end,
        )
        .order_by()
        .annotate(hour=TruncHour("received_at", tzinfo=UTC))
        .values("brand_id", "hour")
        .annotate(n=Count("id"))
    )
    for row in tail:
        history = facts[row["brand_id"]].history
        hour = row["hour"].astimezone(UTC)
        history[hour] = history.get(hour, 0) + row["n"]


def _add_capture_runs(facts: dict[int, BrandFacts], now: datetime) -> None:
    """The reconciliations the capture rule reads: for the brands that reconciled within CAPTURE_RECENT or
    have a capture incident open, their runs of at least CAPTURE_MIN_ORDERS completed book orders, newest
    first. Two queries, whatever the number of brands."""
    # reconciliation_time_idx (created_at), and incident_open_idx (the open incidents).
    recent = Reconciliation.objects.filter(created_at__gte=now - CAPTURE_RECENT, created_at__lte=now)
    brand_ids = set(recent.values_list("brand_id", flat=True).distinct()) | set(
        Incident.objects.filter(resolved_at__isnull=True, rule=Incident.Rule.CAPTURE).values_list(
            "brand_id", flat=True
        )
    )
    brand_ids &= set(facts)
    if not brand_ids:
        return
    # reconciliation_brand_time_idx (brand, -created_at): the runs kept (health.pruning), a few per brand.
    runs = (
        Reconciliation.objects.filter(
            brand_id__in=brand_ids, book_orders__gte=CAPTURE_MIN_ORDERS, created_at__lte=now
        )
        .order_by("brand_id", "-created_at", "-id")
        .values_list("brand_id", "id", "created_at", "book_orders", "received")
    )
    for brand_id, pk, created_at, book_orders, received in runs:
        kept = facts[brand_id].capture_runs
        if len(kept) <= CAPTURE_HISTORY:
            kept.append(CaptureRun(pk, created_at, book_orders, received))
