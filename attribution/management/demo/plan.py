"""The demo world's second creator of the main brand and its commission plan (docs/plans.md): Sam has her
own code, link and rate, and a rule pays a SKU only the tour's line-by-line step orders. The plan keeps the
10 % and the returning customers' 5 %, so every answer the tour printed before reads the same."""

from datetime import UTC, datetime

from django.utils import timezone

from attribution.models import CreatorLink
from attribution.plans import versions
from brands.models import Creator, DiscountCode, PlanVersion

SECOND_NAME = "Sam Second"
SECOND_CODE = "SAM12"
SECOND_LINK_CODE = "acme-demo-sam"
DEMO_SKU = "DEMO-KIT"  # only the tour's step "an order priced line by line" orders it
PLAN_SINCE = datetime(2026, 1, 1, tzinfo=UTC)


def creators(main, primary, *, registered, registered_code: str, registered_link: str) -> dict:
    """The main brand's two active creators as the demo JSON lists them, with the plan that prices them."""
    sam, _ = Creator.objects.update_or_create(brand=main, name=SECOND_NAME, defaults={"is_active": True})
    code, _ = DiscountCode.objects.update_or_create(
        brand=main, code=SECOND_CODE, defaults={"creator": sam, "is_blacklisted": False}
    )
    link, _ = CreatorLink.objects.update_or_create(
        code=SECOND_LINK_CODE,
        defaults={
            "brand": main,
            "creator": sam,
            "destination_url": f"https://{primary.host}/?utm_source=creator&utm_medium=demo",
            "discount_code": code,
            "is_active": True,
        },
    )
    link.full_clean()
    _keep_plan(main, second=sam)
    return {
        "registered": {
            "id": registered.pk,
            "name": registered.name,
            "code": registered_code,
            "link": registered_link,
        },
        "second": {"id": sam.pk, "name": sam.name, "code": SECOND_CODE, "link": link.code},
    }


def plan_document(*, currency: str, second_id: int) -> dict:
    return {
        "currency": currency,
        "base": {"after_discounts": True, "shipping": False, "tax": False},
        "default": {"percent": "10"},
        "rules": [
            {"name": "Demo kit", "when": {"skus": [DEMO_SKU]}, "percent": "25"},
            {"name": "Returning customers", "when": {"customer": "returning"}, "percent": "5"},
            {"name": "Sam's rate", "when": {"creators": [second_id]}, "percent": "12"},
        ],
        "effective_from": PLAN_SINCE.isoformat().replace("+00:00", "Z"),
        "apply_to": "new_orders",
    }


def _keep_plan(main, *, second) -> None:
    """Saved once: a run that finds the same plan in effect makes no new version."""
    wanted = plan_document(currency=main.reporting_currency_now(), second_id=second.pk)
    latest = PlanVersion.objects.filter(brand=main).order_by("-version").first()
    if latest is not None and _same(latest.document, wanted):
        return
    versions.save(brand=main, document=wanted, at=timezone.now(), created_by="seed_demo")


def _same(stored: dict, wanted: dict) -> bool:
    keys = ("currency", "base", "default", "rules")
    return all(stored.get(k) == wanted.get(k) for k in keys)
