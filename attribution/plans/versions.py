"""A brand's plan versions: read them, preview a new document, store it as the next version and, with
`apply_to: unpaid`, re-price the pending and held commissions of orders placed from its effective_from on,
each change kept in the amount history with the version as its cause (docs/plans.md). Locked and paid
commissions never change. The page, the API and the admin all come here."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db import transaction

from brands.models import Brand, Creator, PlanVersion

from ..models import Commission
from ..money import at_rate, money
from .cache import with_rates
from .document import Plan, parse, rates_document
from .repricing import reprice

EXAMPLES = 5
UNPAID = (Commission.State.PENDING, Commission.State.HELD)


@dataclass
class Preview:
    version: int
    plan: Plan
    document: dict
    commissions: int = 0  # the unpaid commissions whose amount would change
    difference: Decimal = Decimal(0)  # their total change in the reporting currency
    currency: str = ""
    not_converted: int = 0  # changes with no locked rate, left out of `difference`
    examples: list = field(default_factory=list)

    def shown(self) -> dict:
        return {
            "version": self.version,
            "apply_to": self.plan.apply_to,
            "re_priced": {
                "commissions": self.commissions,
                "difference": money(self.difference, self.currency) if self.currency else "0",
                "currency": self.currency,
                "not_converted": self.not_converted,
                "examples": self.examples,
            },
        }


def stored(brand_id: int) -> list[PlanVersion]:
    """The brand's stored versions, newest first (plan_version_brand_version_unique)."""
    return list(PlanVersion.objects.filter(brand_id=brand_id).order_by("-version"))


def current(brand: Brand) -> dict:
    """What GET /api/Affiliates/commission_plan and the page show: the version in effect now, its document,
    and every version (a brand that stored none has its rates as version 1)."""
    versions = stored(brand.pk)
    if not versions:
        document = _rates(brand)
        return {
            "plan": document,
            "version": 1,
            "effective_from": None,
            "versions": [{"version": 1, "effective_from": None, "created_at": None, "created_by": "rates"}],
        }
    now = datetime.now(tz=versions[0].effective_from.tzinfo)
    in_effect = next((v for v in versions if v.effective_from <= now), versions[-1])
    document = in_effect.document
    if in_effect.version == 1:  # the brand's rates as they are now (attribution.plans.cache.with_rates)
        document = with_rates(document, brand)
    return {
        "plan": document,
        "version": in_effect.version,
        "effective_from": in_effect.effective_from.isoformat(),
        "versions": [
            {
                "version": v.version,
                "effective_from": v.effective_from.isoformat(),
                "created_at": v.created_at.isoformat(),
                "created_by": v.created_by,
            }
            for v in versions
        ],
    }


def preview(*, brand: Brand, document, at: datetime) -> Preview:
    """What storing `document` would do (Refused when it is at fault); stores nothing."""
    versions = stored(brand.pk)
    plan, normalized = _checked(brand, document, at=at)
    found = Preview(version=(versions[0].version if versions else 1) + 1, plan=plan, document=normalized)
    if plan.apply_to != "unpaid":
        return found
    for commission, priced in _unpaid_changes(brand.pk, plan, found.version, plan.effective_from):
        found.commissions += 1
        change = priced.amount - commission.amount
        if commission.fx_rate:
            found.currency = commission.reporting_currency
            found.difference += at_rate(change, Decimal(commission.fx_rate), commission.reporting_currency)
        else:
            found.not_converted += 1
        if len(found.examples) < EXAMPLES:
            found.examples.append(
                {
                    "order_id": commission.order.order_id,
                    "old": money(commission.amount, commission.currency),
                    "new": money(priced.amount, commission.currency),
                    "currency": commission.currency,
                    "rules": list(dict.fromkeys(priced.rules)),
                }
            )
    return found


def save(*, brand: Brand, document, at: datetime, created_by: str) -> tuple[int, int]:
    """Store `document` as the brand's next version (Refused, nothing stored, when it is at fault); with
    `apply_to: unpaid`, re-price the unpaid commissions it reaches. Returns (version, commissions
    re-priced)."""
    with transaction.atomic():
        Brand.objects.select_for_update().filter(pk=brand.pk).first()  # one new version at a time
        versions = stored(brand.pk)
        plan, normalized = _checked(brand, document, at=at)
        if not versions:  # its rates were version 1: kept as stored history before the change
            PlanVersion.objects.create(
                brand=brand,
                version=1,
                document=_rates(brand),
                effective_from=datetime(1970, 1, 1, tzinfo=at.tzinfo),
                created_at=at,
                created_by="rates",
            )
        number = (versions[0].version if versions else 1) + 1
        PlanVersion.objects.create(
            brand=brand,
            version=number,
            document=normalized,
            effective_from=plan.effective_from,
            created_at=at,
            created_by=created_by[:150],
        )
    re_priced = 0
    if plan.apply_to == "unpaid":
        for commission, priced in _unpaid_changes(brand.pk, plan, number, plan.effective_from):
            try:
                commission.change_amount(
                    commission.order_amount, priced.amount, at=at, priced=priced, plan_cause=number
                )
            except Commission.StateChanged:
                continue  # locked or changed meanwhile: a locked commission never changes
            re_priced += 1
    return number, re_priced


def _checked(brand: Brand, document, *, at: datetime) -> tuple[Plan, dict]:
    def creator_exists(ids):
        return set(Creator.objects.filter(brand_id=brand.pk, pk__in=ids).values_list("pk", flat=True))

    plan = parse(document, creator_exists=creator_exists)
    if plan.effective_from is None:
        plan = parse({**document, "effective_from": at.isoformat()})
    normalized = {**document, "effective_from": plan.effective_from.isoformat(), "apply_to": plan.apply_to}
    return plan, normalized


def _unpaid_changes(brand_id: int, plan: Plan, version: int, since: datetime):
    """The brand's pending and held commissions of orders placed from `since` on whose amount `plan`
    changes, with their new pricing."""
    rows = (
        Commission.objects.filter(brand_id=brand_id, state__in=UNPAID, created_at__gte=since)
        .select_related("order")
        .order_by("pk")
    )
    for commission in rows.iterator(chunk_size=500):
        priced = reprice(commission, plan=plan, version=version)
        if priced.amount != commission.amount:
            yield commission, priced


def _rates(brand: Brand) -> dict:
    return rates_document(
        brand.commission_rate_percent,
        brand.returning_commission_rate_percent,
        currency=brand.reporting_currency_now(),
    )
