"""One shape for an order (issue 54): an order confirmation and a Shopify delivery of the same order reach the
decision as the same typed order (attribution.orders.incoming), each built once, with no second reading of the
order and no lookup of the brand by its host for the platform."""

from decimal import Decimal

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, signature
from attribution.orders import event_brand
from attribution.orders.lines import NO_LINES, OrderLine, OrderLines
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect
from tests.attribution.typed_orders import Decided, apart_from_lines, as_confirmed, sold

pytestmark = pytest.mark.django_db

ORDER = "5820398473216"


@pytest.fixture
def shop(prop):
    return connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)


def confirmation_of(prop, **fields) -> dict:
    """The order confirmation of Shopify's test order (attribution.management.demo.standin.webhook_bodies.shopify_order)."""
    return {
        "orderId": ORDER,
        "orderAmount": "59.90",
        "currency": "USD",
        "page_url": f"https://{prop.host}/thank-you",
        "customer_email": "shopper@example.com",
        "items": [{"sku": "LIN-M", "product_id": 9782123692332, "quantity": 1, "amount": "59.90"}],
        **fields,
    }


def deliver(client, document: dict):
    raw = body_of(document)
    return client.generic(
        "POST",
        "/api/platforms/shopify",
        raw,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(raw, SHOPIFY_SECRET),
        HTTP_X_SHOPIFY_WEBHOOK_ID="b54557e4-bdd9-4b37-8a5f-000000000001",
    )


def test_an_order_confirmation_reaches_the_decision_as_the_typed_order_it_was_read_into(
    api, prop, monkeypatch
):
    body = confirmation_of(prop)
    decided = Decided(monkeypatch)

    answer = api.post("/api/order_confirmation", body)

    assert answer.status_code == 200, answer.json()
    assert decided.built == 1
    (order,) = decided.orders
    assert order == as_confirmed(body)
    assert (order.brand.id, order.resolution.property_id) == (prop.brand_id, prop.pk)
    assert order.lines == OrderLines(
        lines=(OrderLine(gross=Decimal("59.90"), sku="LIN-M", product_id="9782123692332"),)
    )


def test_a_shopify_delivery_reaches_the_decision_as_the_order_confirmation_of_the_same_order(
    client, prop, shop, monkeypatch
):
    expected = as_confirmed(confirmation_of(prop))
    decided = Decided(monkeypatch)

    answer = deliver(client, shopify_order(order_id=int(ORDER), subtotal="59.90"))

    assert answer.status_code == 200, answer.json()
    assert decided.built == 1
    order = decided.orders[0]
    # Only a platform names the shop's referring site (the code_leak rule reads it).
    assert apart_from_lines(order, referring_site="") == apart_from_lines(expected)
    assert sold(order) == sold(expected) == [("LIN-M", "9782123692332", 1, Decimal("59.90"))]
    # What only the platform knows of the lines: the variant, the vendor, the shipping, whether prices hold tax.
    assert (order.lines.lines[0].variant_id, order.lines.lines[0].vendor) == ("50398373085484", "Acme")
    assert (order.lines.shipping, order.lines.taxes_included) == (Decimal("6.90"), False)


def test_a_delivery_s_brand_is_its_connection_s_not_the_one_its_host_resolves_to(
    client, prop, shop, monkeypatch
):
    monkeypatch.setattr(
        event_brand, "resolve_event", lambda body: pytest.fail("the brand was looked up by the order's host")
    )
    decided = Decided(monkeypatch)

    deliver(client, shopify_order(order_id=int(ORDER), subtotal="59.90"))

    assert decided.orders[0].brand.id == prop.brand_id


def test_an_order_that_names_no_lines_has_none(api, prop, monkeypatch):
    decided = Decided(monkeypatch)

    api.post("/api/order_confirmation", confirmation_of(prop, items=None))

    assert decided.orders[0].lines is NO_LINES
