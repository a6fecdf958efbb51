"""A book's order the service never received, recovered by an apply, reaches the decision as the same typed order
(attribution.orders.incoming) as its order confirmation would, built once from the book's row: its brand the
upload's, its property the one the book's order is judged on; Shopify's export's rows of one order its lines."""

from decimal import Decimal

import pytest

from attribution.orders.lines import OrderLine, OrderLines
from tests.attribution.reconciliation.conftest import book, summary_of
from tests.attribution.typed_orders import Decided, as_confirmed, sold

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


SHOPIFY_BOOK = (
    "Name,Financial Status,Currency,Subtotal,Total,Discount Code,Created at,Lineitem quantity,Lineitem price,"
    "Lineitem sku,Lineitem discount,Id\n"
    "#1001,paid,USD,74.00,79.00,,2026-11-24 10:15:00 -0500,2,30.00,LIN-M,6.00,5820398473216\n"
    "#1001,,,,,,,1,20.00,BELT-01,,\n"
)


def test_a_shopify_export_s_rows_of_one_order_are_its_lines(
    brand, prop, alice, upload, apply_run, monkeypatch
):
    run = summary_of(upload(SHOPIFY_BOOK, alice))
    decided = Decided(monkeypatch)

    apply_run(run["id"], alice)

    (order,) = decided.orders
    assert order.order_id == "5820398473216" and order.amount == Decimal("74.00")
    assert order.lines == OrderLines(
        lines=(
            OrderLine(gross=Decimal("60.00"), quantity=2, discount=Decimal("6.00"), sku="LIN-M"),
            OrderLine(gross=Decimal("20.00"), sku="BELT-01"),
        )
    )
    assert sold(order) == sold(
        as_confirmed(
            {
                "orderId": "5820398473216",
                "orderAmount": "74.00",
                "currency": "USD",
                "domain": prop.host,
                "items": [
                    {"sku": "LIN-M", "quantity": 2, "amount": "54.00"},
                    {"sku": "BELT-01", "amount": "20"},
                ],
            }
        )
    )


def test_a_line_item_the_book_cannot_read_leaves_the_order_without_lines_and_says_why(
    alice, upload, apply_run, monkeypatch
):
    run = summary_of(upload(SHOPIFY_BOOK.replace(",1,20.00,", ",1,20 USD,"), alice))
    decided = Decided(monkeypatch)

    apply_run(run["id"], alice)

    lines = decided.orders[0].lines
    assert lines.lines == () and lines.ignored.startswith("line 3: Lineitem price")


def test_line_items_that_do_not_add_up_to_the_subtotal_are_ignored_and_the_order_kept(
    brand, prop, alice, upload, apply_run, monkeypatch
):
    """A row cut from the export, or a price edited by hand: the lines would price part of the order only."""
    cut = SHOPIFY_BOOK.rsplit("#1001,,,", 1)[
        0
    ]  # the BELT-01 row is gone: 54.00 of lines for a 74.00 subtotal
    run = summary_of(upload(cut, alice))
    decided = Decided(monkeypatch)

    apply_run(run["id"], alice)

    (order,) = decided.orders
    assert order.amount == Decimal("74.00") and order.lines.lines == ()
    assert order.lines.ignored == "its line items add up to 54.00, not its Subtotal 74.00"
