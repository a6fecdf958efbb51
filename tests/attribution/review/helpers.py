"""What the review tests read back: an order's commission, its holds and its trace's review steps."""

from datetime import timedelta

from django.utils import timezone

from attribution.models import Attribution, Commission, CommissionHold, Order
from tests.factories import ClickFactory

PAGE = "https://shop.acme.example/checkout/thank-you"


def order(**fields):
    """A valid live order of 59.90 USD from shop.acme.example."""
    return {"orderId": "A-1001", "orderAmount": 59.90, "currency": "USD", "page_url": PAGE, **fields}


def click_of(prop, creator, *, ago=timedelta(hours=2)):
    return ClickFactory(property=prop, creator=creator, clicked_at=timezone.now() - ago)


def tracked(response) -> dict:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["outcome"] == "tracked", body
    return body


def commission_of(order_id: str, brand) -> Commission:
    return Commission.objects.get(brand=brand, order__order_id=order_id)


def holds_of(commission: Commission) -> list[tuple[str, str]]:
    return list(CommissionHold.objects.filter(commission=commission).values_list("rule", "detail"))


def review_steps(order_id: str, brand) -> list[dict]:
    trace = Order.objects.get(brand=brand, order_id=order_id).trace
    return [step for step in trace if step["signal"] == "review"]


def past_orders(brand, creator, *, code, count, code_only, start, spacing=timedelta(hours=1), prefix="P"):
    """`count` tracked live orders that sent `code` and credited `creator`, newest first from `start`; the
    first `code_only` of them credited by the code alone, the others by a click."""
    Order.objects.bulk_create(
        Order(
            brand=brand,
            order_id=f"{prefix}-{n}",
            amount="50",
            currency="USD",
            outcome="tracked",
            attribution=Attribution.CODE if n < code_only else Attribution.CLICK,
            code_sent=code,
            creator=creator,
            received_at=start - spacing * n,
        )
        for n in range(count)
    )


def held_commission(brand, order_id: str, *, rule="self_referral", detail="the shopper's email is Ana's own"):
    """A commission created held by one rule's hold (on CREATED_AT of tests.attribution.keyed)."""
    from tests.attribution.keyed import CREATED_AT, commission_for

    commission = commission_for(brand, order_id=order_id, state=Commission.State.HELD)
    CommissionHold.objects.create(
        brand=brand, commission=commission, rule=rule, detail=detail, held_at=CREATED_AT
    )
    return commission
