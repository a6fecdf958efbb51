"""Pricing a stored commission again (docs/plans.md, "Versions and re-pricing"): an amount update re-prices
with the commission's own plan version, each line keeping its share of the order (so a line's rule still
takes it, a flat amount per unit stays); a new version with `apply_to: unpaid` re-prices pending and held
commissions with that version. A commission made before plans is one line of its whole amount at its rate."""

from decimal import Decimal

from .document import Plan
from .engine import Priced, kept_order, price
from .shown import plan_of_commission
from .store import month_so_far, plan_rate


def reprice(
    commission, *, order_amount: Decimal | None = None, plan: Plan | None = None, version=None
) -> Priced:
    """`commission` priced again: at `order_amount` (its lines scaled to it) with its own version, or with
    `plan` (number `version`) at its own amount."""
    old = commission.order_amount
    new = old if order_amount is None else order_amount
    if commission.calculation:
        scale = new / old if old else Decimal(1)
        amount, returning, lines = kept_order(commission.calculation, scale=scale)
        if not old:
            amount, lines = new, None
    else:  # none stored: the whole order, as its row keeps it (attribution.plans.shown)
        amount, returning, lines = new, commission.is_returning_customer, None
    if plan is None:
        plan, version = plan_of_commission(commission), commission.plan_version
    month = None
    if plan.needs_month:
        month = month_so_far(
            brand_id=commission.brand_id,
            creator_id=commission.creator_id,
            is_test=commission.is_test,
            currency=commission.currency,
            at=commission.created_at,
            exclude=commission.pk,
        )
    return price(
        plan,
        version=version,
        amount=new if order_amount is not None else amount,
        currency=commission.currency,
        is_returning_customer=commission.is_returning_customer or returning,
        lines=lines,
        creator_id=commission.creator_id,
        month=month,
        fx=plan_rate(plan, commission.currency, commission.created_at),
    )
