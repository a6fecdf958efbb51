"""What a platform's order says of its lines (issue 56), read once by its module into the typed order, and its
amounts read by the API's rule (issue 55, finding 10: "1e6" is not an amount)."""

import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from attribution.management.demo.standin.webhook_bodies import shopify_order, woocommerce_order
from attribution.models import Order
from attribution.orders.lines import NO_LINES, OrderLine
from attribution.platforms import shopify, woocommerce
from attribution.platforms.notice import Action, OrderNotice, PlatformOrder
from brands.models import ProductCollections
from health.log.models import OutcomeEvent
from tests.attribution.typed_orders import Decided

pytestmark = pytest.mark.django_db


def shopify_lines(**order):
    return shopify.lines_of({"taxes_included": True, **order})


def test_a_shopify_line_is_its_price_times_its_quantity_less_its_discount_allocations_with_its_tax():
    lines = shopify_lines(
        line_items=[
            {
                "sku": "LIN-M",
                "product_id": 97,
                "variant_id": 501,
                "vendor": "Acme",
                "quantity": 2,
                "price": "30.00",
                "discount_allocations": [{"amount": "4.00"}, {"amount": "2.00"}],
                "tax_lines": [{"price": "4.10"}],
                "properties": [{"name": "Gift message", "value": "For Ana"}],
            }
        ],
        shipping_lines=[
            {"price": "6.90", "discount_allocations": [{"amount": "1.90"}], "tax_lines": [{"price": "0.50"}]}
        ],
    )

    assert lines.lines == (
        OrderLine(
            gross=Decimal("60.00"),
            quantity=2,
            discount=Decimal("6.00"),
            tax=Decimal("4.10"),
            sku="LIN-M",
            product_id="97",
            variant_id="501",
            vendor="Acme",
        ),
    )
    assert (lines.shipping, lines.shipping_tax, lines.taxes_included) == (
        Decimal("5.00"),
        Decimal("0.50"),
        True,
    )


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"quantity": 1, "price": "1e6"}, "line_items[0].price must be a plain number"),
        ({"quantity": 0, "price": "10.00"}, "line_items[0].quantity must be a whole number from 1"),
        ({"quantity": 1}, "line_items[0].price is missing"),
        (
            {"quantity": 1, "price": "10", "discount_allocations": [{"amount": "NaN"}]},
            "discount_allocations[0]",
        ),
    ],
)
def test_a_shopify_line_that_cannot_be_read_leaves_the_order_without_lines_and_says_why(item, why):
    lines = shopify_lines(line_items=[item])

    assert lines.lines == () and why in lines.ignored


def test_a_shopify_order_without_line_items_has_none():
    assert shopify_lines() is NO_LINES


def test_a_woocommerce_line_is_its_subtotal_less_what_its_total_took_off():
    (line,) = woocommerce.lines_of(
        {
            "line_items": [
                {"sku": "LIN-M", "product_id": 93, "variation_id": 0, "quantity": 2, "subtotal": "50.00",
                 "total": "45.00", "total_tax": "3.60"}
            ],
            "shipping_total": "6.90",
        }
    ).lines  # fmt: skip

    assert line == OrderLine(
        gross=Decimal("50.00"),
        quantity=2,
        discount=Decimal("5.00"),
        tax=Decimal("3.60"),
        sku="LIN-M",
        product_id="93",
    )


def test_a_shopify_delivery_s_lines_reach_the_decision_and_the_log_keeps_what_was_read(
    shopify, shop, monkeypatch
):
    decided = Decided(monkeypatch)

    assert shopify("orders/create", shopify_order()).json()["outcome"] == "no_attribution"

    assert [line.sku for line in decided.orders[0].lines.lines] == ["LIN-M"]
    kept = OutcomeEvent.objects.get().request_body
    assert '"line_items"' in kept and '"sku"' in kept and '"properties"' not in kept


def test_a_woocommerce_total_of_1e6_is_refused_as_the_api_refuses_it(woocommerce, site):
    response = woocommerce("order.created", woocommerce_order(total="1e6"))

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_order_amount"
    assert "The order's total must be a plain number" in response.json()["message"]
    assert not Order.objects.exists()
    assert OutcomeEvent.objects.get().outcome == "invalid_order_amount"


def test_a_spooled_notice_keeps_its_lines():
    order = PlatformOrder(order_id=1, amount="10.00", currency="USD", lines=shopify_lines(line_items=[
        {"sku": "A", "quantity": 1, "price": "10.00"}
    ]))  # fmt: skip
    notice = OrderNotice(
        endpoint="shopify", platform="Shopify", connection_id=1, brand_id=1, host="shop.acme.example",
        delivery_id="d", topic="orders/create", action=Action.RECORD, order=order,
    )  # fmt: skip

    assert OrderNotice.from_json(json.loads(json.dumps(notice.as_json()))).order.lines == order.lines


def product_collection_reads(queries) -> int:
    return sum(ProductCollections._meta.db_table in query["sql"] for query in queries)


def test_a_delivery_s_lines_take_the_collections_the_sync_keeps_in_one_query(shopify, shop, monkeypatch):
    ProductCollections.objects.create(
        brand_id=shop.brand_id,
        platform="shopify",
        product_id="9782123692332",
        collections=["summer", "linen"],
    )
    ProductCollections.objects.create(
        brand_id=shop.brand_id, platform="woocommerce", product_id="9782123692332", collections=["other"]
    )
    shopify("orders/create", shopify_order())  # the brand's resolution read and cached
    decided = Decided(monkeypatch)

    with CaptureQueriesContext(connection) as queries:
        shopify("orders/create", shopify_order(order_id=5820398473217))

    assert decided.orders[0].lines.lines[0].collections == ("summer", "linen")
    assert product_collection_reads(queries) == 1  # the order's products, in one IN query


def test_a_brand_whose_sync_keeps_no_collections_costs_its_orders_no_query(shopify, shop, monkeypatch):
    decided = Decided(monkeypatch)

    with CaptureQueriesContext(connection) as queries:
        shopify("orders/create", shopify_order())

    assert decided.orders[0].lines.lines[0].collections == ()
    assert product_collection_reads(queries) == 1  # the brand's resolution, read once and cached, says none
    with CaptureQueriesContext(connection) as queries:
        shopify("orders/create", shopify_order(order_id=5820398473217))
    assert product_collection_reads(queries) == 0
