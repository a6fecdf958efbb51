"""The Commission plan page (/health/plan/): brand users see and change their brand's plan, account managers
any brand's (health.pages.access). A change is typed as the plan's JSON document, previewed (what
`apply_to: unpaid` would re-price, in the reporting currency, with examples) and then saved as a new
version; Simulate prices an order without recording it."""

import json
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from attribution.plans import versions
from attribution.plans.document import Refused
from brands.models import Creator
from health.pages.access import brand_page
from health.pages.plans import sentences
from health.pages.plans.simulate import Unreadable, simulate

# Version 1 stored beside a brand's first saved plan starts at the epoch: it applied from the start.
ALWAYS = datetime(1970, 1, 1, tzinfo=UTC)


@require_http_methods(["GET", "POST"])
@brand_page
def plan_page(request, chosen):
    brand = chosen.brand
    shown = versions.current(brand)
    plan = shown["plan"]
    currency = plan.get("currency", "")
    context = {
        **chosen.context,
        "shown": shown,
        "since": _moment(shown["effective_from"]),
        "versions": [
            {**v, "effective_from": _moment(v["effective_from"]), "created_at": _moment(v["created_at"])}
            for v in shown["versions"]
        ],
        "default_pays": sentences.pays(plan.get("default") or {}, currency=currency, per_line=False),
        "rules": sentences.rules(plan, names=sentences.creator_names(brand, plan)),
        "terms": sentences.terms(plan),
        "document": json.dumps(plan, indent=2),
        "creators": list(
            Creator.objects.filter(brand=brand, is_active=True).order_by("name").only("id", "name")
        ),
        "simulated": None,
        "preview": None,
        "error": "",
        "form": {},
        "items": "",  # the Simulate form's Items box: empty until she types some
    }
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "simulate":
            context["form"], context["items"] = request.POST, request.POST.get("items", "")
            try:
                context["simulated"] = simulate(
                    brand=brand, document=shown["plan"], version=shown["version"], data=request.POST
                )
            except Unreadable as problem:
                context["error"], status = str(problem), 400
        else:
            text = request.POST.get("document", "")
            context["document"] = text
            try:
                document = json.loads(text)
                if action == "save":
                    number, re_priced = versions.save(
                        brand=brand,
                        document=document,
                        at=timezone.now(),
                        created_by=request.user.get_username(),
                    )
                    messages.success(
                        request, f"Version {number} saved; {re_priced} unpaid commission(s) re-priced."
                    )
                    return redirect(f"{reverse('health:plan')}?{urlencode({'brand': brand.pk})}")
                context["preview"] = versions.preview(
                    brand=brand, document=document, at=timezone.now()
                ).shown()
            except json.JSONDecodeError as problem:
                context["error"], status = f"plan: not JSON ({problem.msg}, line {problem.lineno})", 400
            except Refused as refusal:
                context["error"], status = f"{refusal} — nothing was saved.", 400
    return render(request, "health/plan.html", context, status=status)


def _moment(text: str | None) -> datetime | None:
    """A version's ISO time as the page's date filter reads it (in the reader's zone); None for "always"."""
    moment = datetime.fromisoformat(text) if text else None
    return None if moment is None or moment <= ALWAYS else moment
