"""Simulate an order on the Commission plan page: an amount, items, a creator, new or returning, priced
under the plan in effect now. Nothing is recorded."""

import json
from decimal import Decimal, InvalidOperation

from django.utils import timezone

from attribution.plans.document import parse
from attribution.plans.engine import KeptLine, KeptLines, price
from attribution.plans.store import month_so_far, plan_rate


class Unreadable(ValueError):
    """A simulation's field could not be read; the message says which."""


def simulate(*, brand, document: dict, version: int, data) -> dict:
    """The calculation the plan `document` gives the order the form `data` describes."""
    plan = parse(document)
    try:
        amount = Decimal(data.get("amount", "").strip())
    except InvalidOperation:
        raise Unreadable("Amount: a number such as 59.90.") from None
    if amount < 0:
        raise Unreadable("Amount: 0 or more.")
    currency = (data.get("currency") or plan.currency).strip().upper()
    creator = data.get("creator") or ""
    creator_id = int(creator) if creator.isdigit() else None
    lines = _items(data.get("items", "").strip())
    at = timezone.now()
    month = None
    if plan.needs_month and creator_id is not None:
        month = month_so_far(
            brand_id=brand.pk, creator_id=creator_id, is_test=False, currency=currency, at=at
        )
    return price(
        plan,
        version=version,
        amount=amount,
        currency=currency,
        is_returning_customer=data.get("customer") == "returning",
        lines=lines,
        creator_id=creator_id,
        month=month,
        fx=plan_rate(plan, currency, at),
    ).calculation


def _items(text: str) -> KeptLines | None:
    """Items as the order confirmation sends them: [{"sku", "product_id", "quantity", "amount",
    "collections"}], `amount` the line's total after discounts, before tax."""
    if not text:
        return None
    try:
        items = json.loads(text)
        lines = tuple(
            KeptLine(
                gross=Decimal(str(item["amount"])),
                quantity=int(item.get("quantity", 1)),
                sku=str(item.get("sku", "")),
                product_id=str(item.get("product_id", "")),
                vendor=str(item.get("vendor", "")),
                collections=tuple(str(c) for c in item.get("collections", ())),
            )
            for item in items
        )
    except (ValueError, TypeError, KeyError, InvalidOperation, AttributeError):
        raise Unreadable(
            'Items: a JSON list such as [{"sku": "BELT-01", "quantity": 1, "amount": "45.00"}].'
        ) from None
    return KeptLines(lines)
