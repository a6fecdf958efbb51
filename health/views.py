"""Tracking health pages for brand users (decision D15): overview, events list, one event, CSV export.

Every page works on one brand: the one in ?brand=<id> (remembered in the session), else the one picked
last, else the user's first. A brand the user may not see is a 404, never an empty page.
"""

import json
import logging
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from attribution import spool
from brands.models import Brand, brands_visible_to

from . import queries
from .export import csv_lines
from .forms import PERIODS, EventFilterForm, PeriodForm
from .models import Endpoint
from .overview import GROUPS, build_overview, info_of
from .rollup import roll_up

logger = logging.getLogger(__name__)

SESSION_BRAND = "health_brand_id"
ENDPOINT_LABELS = dict(Endpoint.choices)
EVENTS_PER_PAGE = 50
# Work the overview does on the roll-up before reading: bounded, and skipped when cron is at it.
OVERVIEW_ROLLUP_BATCHES = 1


@dataclass
class BrandChoice:
    brand: Brand
    choices: list[Brand]  # brands the user may switch between (empty: nothing to pick)

    @property
    def context(self) -> dict:
        return {"brand": self.brand, "brand_choices": self.choices}


class NoBrand(Exception):
    """The signed-in user may not see any brand yet."""


def choose_brand(request, *, brand: Brand | None = None) -> BrandChoice:
    """The brand this page shows; raises Http404 for a ?brand= the user may not see."""
    visible = queries.visible_brands(request.user)
    if not visible:
        raise NoBrand
    by_id = {b.pk: b for b in visible}
    if brand is None:
        asked = request.GET.get("brand")
        if asked is not None:
            try:
                brand = by_id[int(asked)]
            except (ValueError, KeyError):
                raise Http404("No such brand.") from None
            if request.session.get(SESSION_BRAND) != brand.pk:
                request.session[SESSION_BRAND] = brand.pk
        else:
            brand = by_id.get(request.session.get(SESSION_BRAND)) or visible[0]
    return BrandChoice(brand, visible if len(visible) > 1 else [])


def no_brand_page(request) -> HttpResponse:
    return render(request, "health/no_brand.html", status=403)


@require_safe
@login_required
def overview(request):
    try:
        chosen = choose_brand(request)
    except NoBrand:
        return no_brand_page(request)
    now = timezone.now()
    form = PeriodForm(request.GET)
    period = form.get_period(now)
    namespace = "test" if request.GET.get("ns") == "test" else "live"
    try:
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
        "summary": build_overview(rows, period, namespace=namespace),
        "status": queries.integration_status(chosen.brand, now),
        # Events kept on disk during a service-side fault, waiting for replay_spool.
        "spooled": spool.pending_count(brand_id=chosen.brand.pk),
        "spooled_all": spool.pending_count() if request.user.is_staff else None,
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
    }
    return render(request, "health/overview.html", context)


@require_safe
@login_required
def events(request):
    try:
        chosen = choose_brand(request)
    except NoBrand:
        return no_brand_page(request)
    form = EventFilterForm(request.GET)
    page = None
    if form.is_valid():
        page = queries.events_page(
            chosen.brand,
            form.get_filters(),
            older_than=queries.Cursor.decode(request.GET.get("older")),
            newer_than=queries.Cursor.decode(request.GET.get("newer")),
            size=EVENTS_PER_PAGE,
        )
        for row in page.rows:
            info = info_of(row["outcome"])
            row["label"] = info.label if info else ""
            row["endpoint_label"] = ENDPOINT_LABELS.get(row["endpoint"], row["endpoint"])
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
@login_required
def event(request, pk: int):
    try:
        found = queries.event(brands_visible_to(request.user), pk)
        if found is None:
            raise Http404("No such event.")
        chosen = choose_brand(request, brand=found.brand)
    except NoBrand:
        return no_brand_page(request)
    info = info_of(found.outcome)
    return render(
        request,
        "health/event_detail.html",
        {
            **chosen.context,
            "event": found,
            "info": info,
            "request_json": _pretty(found.request_body),
            "response_json": _pretty(found.response_body),
        },
    )


@require_safe
@login_required
def export(request):
    try:
        chosen = choose_brand(request)
    except NoBrand:
        return no_brand_page(request)
    form = EventFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "Invalid filters: " + "; ".join(e for errors in form.errors.values() for e in errors),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    rows = queries.export_rows(chosen.brand, form.get_filters())
    response = StreamingHttpResponse(csv_lines(rows), content_type="text/csv; charset=utf-8")
    name = f"tracking-health-{slugify(chosen.brand.name) or chosen.brand.pk}-{timezone.now():%Y%m%d-%H%M}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _pretty(value) -> str:
    if value is None:
        return ""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
