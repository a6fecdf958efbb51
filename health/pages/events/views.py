"""The events list, one event and their CSV export (docs/health.md).

Every page works on one brand, chosen by health.pages.access.brand_page; reads go through
health.pages.events.views.queries.
"""

import json
import logging

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from attribution.outcomes.endpoints import Endpoint
from attribution.outcomes.endpoints import label as endpoint_label
from attribution.platforms import registry
from config.lib.jsontext import indented, is_json
from health.pages.access import brand_page
from health.pages.events import queries as event_queries
from health.pages.events.export import csv_lines
from health.pages.events.forms import EventFilterForm
from health.pages.outcomes import info_of

logger = logging.getLogger(__name__)

EVENTS_PER_PAGE = 50


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
