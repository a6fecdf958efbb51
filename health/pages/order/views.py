"""The order page (/health/orders/<order id>): one order with its money side and every event about it, for
the brand chosen by health.pages.access.brand_page; reads go through health.pages.order.queries, from the
replica when there is one, or from the primary when the replica does not have the order yet."""

from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from attribution.orders.trace import readable
from attribution.outcomes.endpoints import CHANGE_ENDPOINT, SYNC_ENDPOINT
from attribution.outcomes.endpoints import label as endpoint_label
from attribution.plans.shown import calculation as plan_calculation
from config.db.router import primary, reads_replica
from health.pages.access import brand_page
from health.pages.order import queries as order_queries
from health.pages.outcomes import info_of
from health.pages.sync.queries import recovery_of


@require_safe
@brand_page
def order_search(request, chosen):
    """The events page's search box: straight to the order page of the id typed."""
    order_id = request.GET.get("order_id", "").strip()
    query = {"brand": chosen.brand.pk} | ({"ns": "test"} if request.GET.get("ns") == "test" else {})
    if not order_id:
        return redirect(f"{reverse('health:events')}?{urlencode({'brand': chosen.brand.pk})}")
    return redirect(f"{reverse('health:order', args=[order_id])}?{urlencode(query)}")


@require_safe
@brand_page
def order(request, chosen, order_id: str):
    is_test = request.GET.get("ns") == "test"
    page = order_queries.order_page(chosen.brand, order_id, is_test=is_test)
    if (page is None or page.order is None) and reads_replica():
        # The replica has not replayed a brand-new order yet (an alert's link, moments after it arrived), as
        # the read API, which reads the primary, already has it: the page is read whole from the primary.
        with primary():
            return _order(request, chosen, order_id, is_test)
    return _order(request, chosen, order_id, is_test, page)


def _order(request, chosen, order_id: str, is_test: bool, page=None):
    if page is None:
        page = order_queries.order_page(chosen.brand, order_id, is_test=is_test)
    if page is None:
        raise Http404("No order or event with this id for this brand.")
    for row in page.events:
        info = info_of(row["outcome"], row["endpoint"])  # a tracked cancel cancelled; it attributed nothing
        row["label"] = info.label if info else ""
        row["endpoint_label"] = endpoint_label(row["endpoint"])
    context = {**chosen.context, "page": page, "is_test": is_test}
    if page.commission is not None:
        context["calculation"] = plan_calculation(page.commission)  # issue 56: docs/plans.md
    if page.order is not None:
        context["paths"] = paths_of(page.order, page.events)
        context["trace"] = readable(page.order.trace)
        context["recovery"] = recovery_of(page.order)  # an order the sync recovered: placed before it came
        if request.user.is_staff:  # what-if: the same event judged today; it changes nothing
            what_if = order_queries.what_if(page.order, now=timezone.now())
            what_if.trace = readable(what_if.trace)
            context["what_if"] = what_if
    return render(request, "health/order.html", context)


def paths_of(order, events: list[dict]) -> list[str]:
    """Which ways in saw the order (attribution.orders.joins): the order confirmation, the platform's webhook."""
    paths = ["the order confirmation"] if order.via_api else []
    if order.via_platform:
        seen = {r["endpoint"] for r in events}
        platforms = [endpoint_label(e) for e, change in CHANGE_ENDPOINT.items() if seen & {e, change}]
        # An order only the platform's sync brought (attribution.platforms.sync): no webhook saw it.
        platforms += [
            endpoint_label(sync) for e, sync in SYNC_ENDPOINT.items() if sync in seen and e not in seen
        ]
        paths += platforms or ["a storefront platform's webhook"]
    return paths
