"""Tracking health pages for brand users: overview, events list, one event, CSV export (docs/health.md).

Every page works on one brand, chosen by health.pages.access.brand_page; reads go through health.pages.queries
(the overview) and health.pages.event_queries (the list, an event, the export).
"""

import json
import logging
from urllib.parse import urlencode

from django.db import DatabaseError
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from attribution.durability import spool
from attribution.outcomes.endpoints import Endpoint
from attribution.outcomes.endpoints import label as endpoint_label
from attribution.platforms import registry
from config.db.router import primary
from config.lib.jsontext import indented, is_json
from health.log.rollup import roll_up
from health.pages import event_queries, queries, reconcile_queries
from health.pages.access import brand_page
from health.pages.export import csv_lines
from health.pages.forms import PERIODS, EventFilterForm, PeriodForm
from health.pages.overview import GROUPS, build_overview, info_of
from health.pages.sync import queries as sync_queries

logger = logging.getLogger(__name__)

EVENTS_PER_PAGE = 50
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
    context = {
        **chosen.context,
        "form": form,
        "periods": PERIODS,
        "period": period,
        "namespace": namespace,
        "summary": build_overview(rows, period, namespace=namespace, zone=timezone.get_current_timezone()),
        "status": queries.integration_status(chosen.brand, now),
        # The share of the brand's order book that arrived, by day, from its reconciliations.
        "capture": reconcile_queries.capture_by_day(
            chosen.brand, first_day=period.first_day, last_day=period.last_day
        ),
        # Of the shops' orders per day, those that arrived live by each path and only by the nightly sync.
        "sync_capture": sync_queries.capture_by_day(
            chosen.brand, first_day=period.first_day, last_day=period.last_day
        ),
        # The brand's storefront-platform connections: deliveries and the capture rate by path.
        "platforms": queries.platform_figures(chosen.brand, period, is_test=namespace == "test"),
        # Events kept during a service-side fault and not processed yet, as the last replay run counted
        # them (attribution.durability.spool.backlog: the database, never the spool directory).
        "spooled": spool.pending_count(brand_id=chosen.brand.pk),
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


@require_safe
@brand_page
def events(request, chosen):
    form = EventFilterForm(request.GET)
    page = None
    if form.is_valid():
        page = event_queries.events_page(
            chosen.brand,
            form.get_filters(),
            older_than=event_queries.Cursor.decode(request.GET.get("older")),
            newer_than=event_queries.Cursor.decode(request.GET.get("newer")),
            size=EVENTS_PER_PAGE,
        )
        for row in page.rows:
            info = info_of(row["outcome"], row["endpoint"])
            row["label"] = info.label if info else ""
            row["needs_action"] = bool(info and info.needs_action)
            row["endpoint_label"] = endpoint_label(row["endpoint"])
    return render(
        request,
        "health/events.html",
        {
            **chosen.context,
            "form": form,
            "page": page,
            "paged": "older" in request.GET or "newer" in request.GET,
        },
    )


@require_safe
@brand_page(find=event_queries.event)
def event(request, chosen, found, pk: int):
    info = info_of(found.outcome, found.endpoint)
    return render(
        request,
        "health/event_detail.html",
        {
            **chosen.context,
            "event": found,
            "endpoint_label": endpoint_label(found.endpoint),
            # A storefront platform's delivery keeps the fields of its order that are read (its `kept`).
            "platform_order": registry.platform_of_endpoint(found.endpoint) is not None,
            "info": info,
            "commission": event_queries.commission_of(found.brand, found.order_id, is_test=found.is_test),
            "request_text": indented(found.request_body or ""),
            "request_is_json": is_json(found.request_body or ""),
            "response_json": _pretty(found.response_body),
            "from_book": _book_row_named(found),
        },
    )


def _book_row_named(event) -> dict | None:
    """A reconciliation's change names its run and line in its body (attribution.reconciliation.applying)."""
    if event.endpoint != Endpoint.RECONCILIATION or not event.request_body:
        return None
    try:
        body = json.loads(event.request_body)
    except ValueError:
        return None
    run, line = body.get("reconciliation"), body.get("line")
    return {"run": run, "line": line} if isinstance(run, int) and isinstance(line, int) else None


@require_safe
@brand_page
def export(request, chosen):
    form = EventFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "Invalid filters: " + "; ".join(e for errors in form.errors.values() for e in errors),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    rows = event_queries.export_rows(chosen.brand, form.get_filters())
    # The zone is taken now: the rows are written after this view has returned.
    zone = timezone.get_current_timezone()
    response = StreamingHttpResponse(csv_lines(rows, zone=zone), content_type="text/csv; charset=utf-8")
    name = f"tracking-health-{slugify(chosen.brand.name) or chosen.brand.pk}-{timezone.localtime():%Y%m%d-%H%M}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _pretty(value) -> str:
    if value is None:
        return ""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
