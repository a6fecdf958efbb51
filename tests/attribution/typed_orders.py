"""The typed order each way in hands the decision (attribution.orders.incoming): a spy on the decision's entry,
and the order confirmation's typed order of the same order to compare with."""

import dataclasses

from attribution.orders import confirmation
from attribution.orders.incoming import IncomingOrder


class Decided:
    """Every typed order the decision was handed, in order, and how many typed orders were built."""

    def __init__(self, monkeypatch):
        self.orders: list[IncomingOrder] = []
        self.built = 0
        decide, init = confirmation.decide, IncomingOrder.__init__

        def spied(**kwargs):
            self.orders.append(kwargs["fields"])
            return decide(**kwargs)

        def counted(order, *args, **kwargs):
            self.built += 1
            init(order, *args, **kwargs)

        monkeypatch.setattr(confirmation, "decide", spied)
        monkeypatch.setattr(IncomingOrder, "__init__", counted)


def as_confirmed(body: dict) -> IncomingOrder:
    """The typed order an order confirmation `body` is read into (nothing judged, nothing stored)."""
    result, order = confirmation.read_confirmation(body)
    assert order is not None, result.text
    return order


def sold(order: IncomingOrder) -> list[tuple]:
    """What every way in can say of each line: its sku, product, quantity and amount after discounts."""
    return [
        (line.sku, line.product_id, line.quantity, line.gross - line.discount) for line in order.lines.lines
    ]


def apart_from_lines(order: IncomingOrder, **known) -> IncomingOrder:
    """The order without its lines (compared by `sold`), and with what only some ways in know set as given."""
    return dataclasses.replace(order, lines=None, **known)
