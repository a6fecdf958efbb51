"""Held commissions for the review tests, built as the decision leaves them: the order, its commission in the
held state, and one waiting hold per rule with its evidence."""

from decimal import Decimal

from attribution.models import Commission, CommissionHold
from tests import factories


def held(
    brand,
    creator,
    order_id: str,
    *,
    at,
    rules=("self_referral",),
    detail: str = "",
    amount: str = "100.00",
    is_test: bool = False,
) -> Commission:
    """A held commission of `creator` on order `order_id`, held at `at` by each of `rules`."""
    order = factories.OrderFactory(
        brand=brand, order_id=order_id, amount=Decimal(amount), is_test=is_test, received_at=at
    )
    commission = factories.CommissionFactory(
        order=order,
        creator=creator,
        state=Commission.State.HELD,
        amount=Decimal(amount) / 10,
        created_at=at,
        updated_at=at,
    )
    for rule in rules:
        CommissionHold.objects.create(
            brand=brand,
            commission=commission,
            rule=rule,
            detail=detail or f"{rule} evidence for {order_id}",
            held_at=at,
        )
    return commission
