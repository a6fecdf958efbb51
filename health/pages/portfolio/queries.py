"""Reads behind the portfolio (/health/portfolio/): every brand's last 7 days on one row, from the daily
counts plus the unrolled tail (one snapshot), each brand's last event (one index probe each), and the open
incidents. The brands are those health.pages.access.staff_page allowed."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, OuterRef, QuerySet, Subquery, Sum

from attribution.models import SyncRun
from attribution.outcomes.endpoints import counts_as_order
from health.alerts.descriptions import describe
from health.alerts.events.rules import ACTION_CODES
from health.alerts.models import Incident
from health.log.models import DailyOutcomeCount, OutcomeEvent, RollupWatermark
from health.log.probes import newest_first
from health.log.rollup import WATERMARK_PK
from health.log.snapshot import consistent_snapshot
from health.pages.periods import start_of_day
from health.pages.sync.queries import recovered_by_brand

DAYS = 7  # today and the 6 days before, as the overview's 7 days


@dataclass
class PortfolioRow:
    brand_id: int
    name: str
    is_active: bool
    last_event_at: datetime | None = None
    orders: int = 0  # live order confirmations
    tracked: int = 0  # of which attributed
    events: int = 0  # live events on all endpoints
    needs_action: int = 0  # of which need the brand's action
    open_incidents: list[str] = field(default_factory=list)  # incident titles
    last_sync: SyncRun | None = None  # the newest sync of any of its shops, with its connection

    @property
    def tracked_share(self) -> float | None:
        return 100 * self.tracked / self.orders if self.orders else None

    @property
    def action_share(self) -> float | None:
        return 100 * self.needs_action / self.events if self.events else None


def _add(row: PortfolioRow, endpoint: str, outcome: str, n: int) -> None:
    row.events += n
    if outcome in ACTION_CODES:
        row.needs_action += n
    if counts_as_order(endpoint, outcome):  # by the order confirmation or a platform's order webhook
        row.orders += n
        if outcome == "tracked":
            row.tracked += n


def portfolio(brands: QuerySet, *, now: datetime) -> list[PortfolioRow]:
    """One row per brand; brands with open incidents first, then by name."""
    first_day = now.date() - timedelta(days=DAYS - 1)
    # outcome_brand_test_time_idx (brand, is_test, -received_at): one probe per brand (health.log.probes).
    last = newest_first(OutcomeEvent.objects.filter(brand=OuterRef("pk")), is_test=False).values(
        "received_at"
    )[:1]
    rows = {
        pk: PortfolioRow(pk, name, active, last_event_at=last_at)
        for pk, name, active, last_at in brands.order_by("name")
        .annotate(last_event=Subquery(last))
        .values_list("pk", "name", "is_active", "last_event")
    }
    with consistent_snapshot():
        watermark = (
            RollupWatermark.objects.filter(pk=WATERMARK_PK).values_list("last_event_id", flat=True).first()
            or 0
        )
        # daily_count_day_idx: the last 7 days of every brand.
        rolled = (
            DailyOutcomeCount.objects.filter(day__gte=first_day, is_test=False)
            .order_by()
            .values("brand_id", "endpoint", "outcome")
            .annotate(n=Sum("count"))
        )
        tail = (
            OutcomeEvent.objects.filter(
                id__gt=watermark, is_test=False, received_at__gte=start_of_day(first_day)
            )
            .order_by()
            .values("brand_id", "endpoint", "outcome")
            .annotate(n=Count("id"))
        )
        for r in [*rolled, *tail]:
            if r["brand_id"] in rows:
                _add(rows[r["brand_id"]], r["endpoint"], r["outcome"], r["n"])
    titles = defaultdict(list)
    for incident in Incident.objects.filter(resolved_at__isnull=True, brand__isnull=False).order_by(
        "opened_at"
    ):
        titles[incident.brand_id].append(incident)
    for pk, incidents in titles.items():
        if pk in rows:
            rows[pk].open_incidents = [describe(i).title for i in incidents]
    # The orders the sync recorded: their outcome rows are on the sync's endpoint, no order endpoint.
    recovered = recovered_by_brand(list(rows), since=start_of_day(first_day), until=now, is_test=False)
    for pk, (n, tracked) in recovered.items():
        rows[pk].orders += n
        rows[pk].tracked += tracked
    for run in last_syncs(list(rows)):
        rows[run.brand_id].last_sync = run
    return sorted(rows.values(), key=lambda r: (not r.open_incidents, r.name.lower()))


def last_syncs(brand_ids: list[int]) -> list[SyncRun]:
    """Each brand's newest sync run, with its connection: two queries however many brands."""
    # sync_run_brand_time_idx (brand, -started_at): one probe per brand.
    newest = (
        SyncRun.objects.filter(brand_id=OuterRef("brand_id")).order_by("-started_at", "-pk").values("pk")[:1]
    )
    return list(
        SyncRun.objects.filter(brand_id__in=brand_ids, pk=Subquery(newest)).select_related("connection")
    )
