"""The Review page (/health/review/): the brand's held commissions, filterable by rule and creator, each with
the evidence of its holds and its order's page a click away; released or rejected one at a time or in bulk,
with a note, through attribution.review.decisions (which records who and keeps every move's history). And
the brand's review settings (/health/review/settings/). The brand is chosen by health.pages.access; reads go
through health.pages.review.queries."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from attribution.models import CommissionHold
from attribution.outcomes import Outcome
from attribution.review import decisions, settings_copy
from health.pages.access import brand_page
from health.pages.review import queries as review_queries
from health.pages.review.forms import DecisionForm, FilterForm, ReviewSettingsForm

ORDERS_NAMED = 5  # a message names this many orders, then says how many more


def _filters(data, brand) -> dict:
    """The page's own query (brand, namespace, valid filters) from a GET or from a decision's hidden fields."""
    form = FilterForm(data)
    query = {"brand": brand.pk}
    if data.get("ns") == "test":
        query["ns"] = "test"
    if form.is_valid():
        query |= {k: v for k, v in form.cleaned_data.items() if v not in ("", None)}
    return query


def _here(query: dict) -> str:
    return f"{reverse('health:review')}?{urlencode(query)}"


def _render(request, chosen, data, *, decision_form=None, status=200):
    brand = chosen.brand
    is_test = data.get("ns") == "test"
    query = _filters(data, brand)
    rule, creator = query.get("rule", ""), query.get("creator")
    queue = review_queries.queue(brand, is_test=is_test, rule=rule, creator=creator)
    context = {
        **chosen.context,
        "form": FilterForm(data),  # its errors, if any: an unknown filter is left out of the query
        "namespace": "test" if is_test else "live",
        "queue": queue,
        # A filter that matches nothing any more (all decided) stays shown as chosen, with its 0.
        "rule_choices": review_queries.with_chosen(queue.rules, rule, review_queries.RULE_LABELS.get(rule)),
        "creator_choices": review_queries.with_chosen(queue.creators, creator and str(creator), "(no holds)"),
        "decided": review_queries.decided(brand, is_test=is_test),
        "rule": rule,
        "creator": creator,
        "query": query,
        "decision_form": decision_form,
        "review_days": settings_copy.settings_of(brand.pk).review_days,
        "now": timezone.now(),
    }
    return render(request, "health/review.html", context, status=status)


@require_safe
@brand_page
def review(request, chosen):
    return _render(request, chosen, request.GET)


@require_POST
@brand_page
def decide(request, chosen):
    form = DecisionForm(request.POST, commissions=review_queries.held_commissions(chosen.brand))
    if not form.is_valid():
        return _render(request, chosen, request.POST, decision_form=form, status=400)
    ticked = {c.pk: c for c in form.cleaned_data["commission"]}
    decision = form.cleaned_data["decision"]
    who = decisions.Who(
        via=CommissionHold.Via.PAGE, user=request.user, request_id=getattr(request, "request_id", "")
    )
    outcomes = decisions.decide_many(list(ticked), decision, note=form.cleaned_data["note"], who=who)
    decided = [ticked[pk] for pk, outcome in outcomes if outcome != Outcome.NOT_HELD]
    not_held = [ticked[pk] for pk, outcome in outcomes if outcome == Outcome.NOT_HELD]
    if decided:
        messages.success(request, decided_message(decision, decided))
    if not_held:
        messages.info(request, not_held_message(not_held))
    return redirect(_here(_filters(request.POST, chosen.brand)))


def _orders(commissions) -> str:
    ids = [c.order.order_id for c in commissions]
    named = ", ".join(ids[:ORDERS_NAMED])
    return named + (f" and {len(ids) - ORDERS_NAMED} more" if len(ids) > ORDERS_NAMED else "")


def decided_message(decision: str, commissions) -> str:
    n = len(commissions)
    what = f"{n} held commission{'s' if n != 1 else ''} ({_orders(commissions)})"
    if decision == decisions.RELEASE:
        return (
            f"Released {what}: pending again, {'they lock' if n != 1 else 'it locks'} onto a statement once "
            f"{'their' if n != 1 else 'its'} return window has closed."
        )
    return f"Rejected {what}: cancelled, never billed."


def not_held_message(commissions) -> str:
    n = len(commissions)
    return (
        f"{n} commission{'s were' if n != 1 else ' was'} no longer held ({_orders(commissions)}): decided or "
        "cancelled meanwhile, so nothing was changed for "
        f"{'them' if n != 1 else 'it'}."
    )


@require_http_methods(["GET", "HEAD", "POST"])
@brand_page
def review_settings(request, chosen):
    brand = chosen.brand
    row = settings_copy.settings_of(brand.pk)
    form = ReviewSettingsForm(request.POST if request.method == "POST" else None, instance=row)
    if request.method == "POST":
        if form.is_valid():
            saved = form.save(commit=False)
            saved.brand, saved.updated_at = brand, timezone.now()
            saved.save()
            messages.success(
                request,
                "Review settings saved. They apply to new orders within seconds; holds already made wait for your decision.",
            )
            return redirect(f"{reverse('health:review_settings')}?{urlencode({'brand': brand.pk})}")
    context = {**chosen.context, "form": form, "updated_at": row.updated_at if row.pk else None}
    return render(request, "health/review_settings.html", context, status=400 if form.errors else 200)
