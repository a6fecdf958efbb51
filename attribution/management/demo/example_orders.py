"""The orders behind the OpenAPI examples (attribution.contract.examples), kept true by seed_demo on every run:
the keyed examples' orders exist, attributed by the demo code with a commission that is not billed, and
the order ids the order confirmation examples send are free. An example order whose commission is
already on a statement (locked or paid) is left alone: billing history is never deleted."""

import json

from attribution.contract import examples
from attribution.models import Order
from attribution.orders.confirmation import confirm_order


def keep_examples_true(brand, *, now) -> None:
    for order_id in (*examples.SEEDED, *examples.FREED):
        order = (
            Order.objects.filter(brand=brand, order_id=order_id, is_test=False)
            .select_related("commission")
            .first()
        )
        if order is None or (order_id in examples.SEEDED and _usable(order)) or _billed(order):
            continue
        order.delete()
    for order_id in examples.SEEDED:
        if not Order.objects.filter(brand=brand, order_id=order_id, is_test=False).exists():
            body = {
                "orderId": order_id,
                "orderAmount": 100,
                "currency": "USD",
                "page_url": examples.PAGE,
                "code": examples.CODE,
            }
            confirm_order(payload=json.loads(json.dumps(body)), received_at=now)


def _usable(order: Order) -> bool:
    """A seeded order its example still works on: attributed, with a pending commission (the read example
    finds any order; the update and cancel examples need a pending commission)."""
    commission = getattr(order, "commission", None)
    return commission is not None and commission.state == "pending"


def _billed(order: Order) -> bool:
    commission = getattr(order, "commission", None)
    return commission is not None and (
        commission.state in ("locked", "paid") or commission.statement_id is not None
    )
