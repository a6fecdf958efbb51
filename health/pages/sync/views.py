"""The sync history (/health/sync/), one run (/health/sync/<pk>/) and Sync now (POST /health/sync/now/). Sync now
queues the shop's sync (attribution.platforms.sync.orchestration.queue_sync) for the window asked, when none of
the shop is queued or running and the brand has not pressed it too often (API_THROTTLE_RATES["sync_now"]); the
history shows it once it runs. The brand is chosen by health.pages.access.brand_page."""

import math
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from attribution.http import throttles
from attribution.models import SyncRun
from attribution.platforms.sync import queued
from attribution.platforms.sync.orchestration import queue_sync
from health.pages.access import brand_page

from . import queries
from .forms import SyncNowForm, sync_now_context


def _history_url(brand_id: int) -> str:
    return f"{reverse('health:sync_history')}?{urlencode({'brand': brand_id})}"


@require_safe
@brand_page
def sync_history(request, chosen):
    connection = request.GET.get("connection", "")
    runs = queries.runs_of(chosen.brand, connection_id=int(connection) if connection.isdigit() else None)
    context = {**chosen.context, "runs": runs, **sync_now_context(chosen.brand)}
    return render(request, "health/sync_history.html", context)


@require_safe
@brand_page(find=queries.run_of)
def sync_run(request, chosen, run, pk: int):
    context = {**chosen.context, "run": run, "recovered": queries.recovered_orders(run)}
    return render(request, "health/sync_run.html", context)


@require_POST
@brand_page
def sync_now(request, chosen):
    form = SyncNowForm(request.POST, brand=chosen.brand)
    if not form.is_valid():
        for error in [*form.non_field_errors(), *(e for field in form for e in field.errors)]:
            messages.error(request, error)
        return redirect(_history_url(chosen.brand.pk))
    connection = form.cleaned_data["connection"]
    start, end = form.window()
    rate = settings.API_THROTTLE_RATES.get("sync_now")
    allowed, wait, _ = throttles.hit(f"sync_now:{chosen.brand.pk}", rate=rate) if rate else (True, 0, False)
    if not allowed:
        messages.warning(
            request,
            f"Sync now was pressed {rate.split('/')[0]} times within the {rate.split('/')[1]}: try again in "
            f"{max(1, math.ceil(wait / 60))} minute(s).",
        )
        return redirect(_history_url(chosen.brand.pk))
    if SyncRun.objects.filter(connection=connection, status=SyncRun.Status.RUNNING).exists():
        messages.warning(
            request, f"A sync of {connection.shop_domain} is running: try again once it has finished."
        )
        return redirect(_history_url(chosen.brand.pk))
    if queued.hold(connection, start=start, end=end, now=timezone.now()) is None:
        messages.warning(
            request,
            f"A sync of {connection.shop_domain} is queued already: it appears below once the task runner takes "
            "it. Press again once it has finished.",
        )
        return redirect(_history_url(chosen.brand.pk))
    queue_sync(connection.pk, SyncRun.Trigger.MANUAL, start.isoformat(), end.isoformat())
    messages.success(
        request,
        f"The sync of {connection.shop_domain} from {start:%Y-%m-%d} to {end:%Y-%m-%d %H:%M} UTC is queued: it "
        "appears below once the task runner takes it (a minute or so).",
    )
    return redirect(_history_url(chosen.brand.pk))
