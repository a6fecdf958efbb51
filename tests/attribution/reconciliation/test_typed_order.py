"""A book's order the service never received, recovered by an apply, reaches the decision as the same typed order
(attribution.orders.incoming) as its order confirmation would, built once from the book's row: its brand the
upload's, its property the one the book's order is judged on."""

import pytest

from tests.attribution.reconciliation.conftest import book, summary_of
from tests.attribution.typed_orders import Decided, as_confirmed

pytestmark = pytest.mark.django_db


def test_a_recovered_book_row_reaches_the_decision_as_its_order_confirmation_would(
    brand, prop, alice, upload, apply_run, monkeypatch
):
    run = summary_of(upload(book("B-1,59.90,USD,,ANA10,,,"), alice))
    decided = Decided(monkeypatch)

    assert apply_run(run["id"], alice).json()["changes"]["created"] == 1

    assert decided.built == 1
    (order,) = decided.orders
    assert order == as_confirmed(
        {"orderId": "B-1", "orderAmount": "59.90", "currency": "USD", "domain": prop.host, "code": "ANA10"}
    )
    assert (order.brand.id, order.resolution.property_id) == (brand.id, prop.pk)
