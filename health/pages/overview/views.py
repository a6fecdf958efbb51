"""The overview (docs/health.md): a brand's outcomes of a period, its integration's status, its platforms'
deliveries and the share of its order book that arrived. The brand is chosen by
health.pages.access.brand_page; reads go through health.pages.overview.queries."""

import logging
from urllib.parse import urlencode

from django.db import DatabaseError
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from attribution.durability import spool
from config.db.router import primary
from health.log.rollup import roll_up
from health.pages.access import brand_page
from health.pages.outcomes import GROUPS
from health.pages.overview import queries
from health.pages.overview.forms import PERIODS, PeriodForm
from health.pages.overview.money import commission_in_reporting
from health.pages.overview.summary import build_overview
from health.pages.reconcile import queries as reconcile_queries
from health.pages.sync import queries as sync_queries

logger = logging.getLogger(__name__)

# Work the overview does on the roll-up before reading: bounded, and skipped when cron is at it.
OVERVIEW_ROLLUP_BATCHES = 1


@require_safe
@brand_page
def overview(request, chosen):
    now = timezone.now()
    form = PeriodForm(request.GET)
    period = form.get_period(now)
    namespace = "test" if request.GET.get("ns") == "test" else "live"
    try:
        with primary():  # a write, and what it reads must be the primary's (config/db/router.py)
            roll_up(max_batches=OVERVIEW_ROLLUP_BATCHES, wait=False, now=now)
    except DatabaseError:  # the figures stay exact without it: the unrolled tail is read as well
        logger.warning("overview roll-up failed", exc_info=True)
    rows = queries.outcome_counts(chosen.brand, period)
    summary = build_overview(rows, period, namespace=namespace, zone=timezone.get_current_timezone())
    summary.add_recovered(*queries.recovered_orders(chosen.brand, period, is_test=namespace == "test"))
    context = {
        **chosen.context,
        "form": form,
        "periods": PERIODS,
        "period": period,
        "namespace": namespace,
        "summary": summary,
        "status": queries.integration_status(chosen.brand, now),
        # The share of the brand's order book that arrived, by day, from its reconciliations.
        "book_received": reconcile_queries.book_received_by_day(
            chosen.brand, first_day=period.first_day, last_day=period.last_day
        ),
        # Of the shops' orders per day, those that arrived live by each path and only by the nightly sync.
        "live_share": sync_queries.live_share_by_day(
            chosen.brand, first_day=period.first_day, last_day=period.last_day
        ),
        # The brand's storefront-platform connections: deliveries and the capture rate by path.
        "platforms": queries.platform_figures(chosen.brand, period, is_test=namespace == "test"),
        # Events kept during a service-side fault and not processed yet, as the last replay run counted
        # them (attribution.durability.spool.backlog: the database, never the spool directory).
        "spooled": spool.pending_count(brand_id=chosen.brand.pk),
        # The period's attributed commission in the brand's reporting currency (docs/currencies.md).
        "money": commission_in_reporting(
            chosen.brand, since=period.start, until=period.end, is_test=namespace == "test"
        ),
        "backlog_all": spool.backlog() if request.user.is_staff else None,
        "groups": GROUPS,
        "now": now,
        # The events list for the same brand, namespace and days; each link adds outcome or endpoint.
        "events_query": urlencode(
            {
                "brand": chosen.brand.pk,
                "ns": namespace,
                "from": period.first_day.isoformat(),
                "to": period.last_day.isoformat(),
            }
        ),
        # The same without the days: a chart bar adds its own day.
        "events_base_query": urlencode({"brand": chosen.brand.pk, "ns": namespace}),
    }
    return render(request, "health/overview.html", context)
