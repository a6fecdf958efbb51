"""The order page's what-if re-judges an order a storefront platform's webhook brought, as it re-judges an
order confirmation: the order as the outcome log kept it, read again by its platform's module, judged today
under today's codes, clicks, creators and window. Nothing changes."""

import re
from html import unescape

import pytest

from attribution.management.demo.standin.webhook_bodies import (
    body_of,
    shopify_order,
    signature,
    woocommerce_order,
)
from attribution.models import Commission, Order
from brands.hosts import hash_email
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, WOO_SECRET, connect, post_shopify

pytestmark = pytest.mark.django_db

SHOPIFY_ORDER = "5820398473216"


def text_of(response) -> str:
    assert response.status_code == 200, response.content.decode()[:800]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


@pytest.fixture
def by_code(client, prop, creator):
    """A Shopify order with Ana's code ANA10: tracked."""
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    code = factories.DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    raw = body_of(shopify_order(codes=(("ANA10", "5.00"),)))
    assert post_shopify(client, raw).json()["outcome"] == "tracked"
    return code


def test_a_shopify_order_is_judged_again_today(client, staff, by_code):
    by_code.is_blacklisted = True
    by_code.save()
    client.force_login(staff)
    before = (Order.objects.count(), Commission.objects.count(), OutcomeEvent.objects.count())

    text = text_of(client.get(f"/health/orders/{SHOPIFY_ORDER}?brand={by_code.brand_id}"))

    assert "What if it arrived now?" in text
    assert "the same event would be blacklisted_code , not tracked" in text
    assert "Code ANA10 is blacklisted: it credits no one." in text
    assert "judges order confirmations alone" not in text
    assert (Order.objects.count(), Commission.objects.count(), OutcomeEvent.objects.count()) == before


def test_a_shopify_order_judged_alike_today_says_so(client, staff, by_code):
    client.force_login(staff)

    text = text_of(client.get(f"/health/orders/{SHOPIFY_ORDER}?brand={by_code.brand_id}"))

    assert "the same event would be tracked , as it was" in text


def test_a_known_shopper_is_matched_again_by_the_kept_hash(client, staff, prop, creator):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    factories.KnownShopperFactory(
        brand=prop.brand, creator=creator, email_hash=hash_email("shopper@example.com")
    )
    assert post_shopify(client, body_of(shopify_order())).json()["outcome"] == "tracked"
    client.force_login(staff)

    text = text_of(client.get(f"/health/orders/{SHOPIFY_ORDER}?brand={prop.brand_id}"))

    assert "the same event would be tracked , as it was" in text


def test_a_woocommerce_order_is_judged_again_today(client, staff, prop, creator):
    connect(prop, platform="woocommerce", shop_domain="shop.acme.example", secret=WOO_SECRET)
    click = factories.ClickFactory(property=prop, creator=creator)
    raw = body_of(woocommerce_order(meta=[("sms_click_id", click.click_id)]))
    sent = client.generic(
        "POST",
        "/api/platforms/woocommerce",
        raw,
        content_type="application/json",
        HTTP_X_WC_WEBHOOK_SOURCE="https://shop.acme.example/",
        HTTP_X_WC_WEBHOOK_TOPIC="order.created",
        HTTP_X_WC_WEBHOOK_SIGNATURE=signature(raw, WOO_SECRET),
        HTTP_X_WC_WEBHOOK_DELIVERY_ID="d-1",
    )
    assert sent.json()["outcome"] == "tracked"
    click.delete()  # the click is gone today
    client.force_login(staff)

    text = text_of(client.get(f"/health/orders/727?brand={prop.brand_id}"))

    # A platform's order is real whatever its click: an unknown click is left out, as a delivery today would.
    assert "the same event would be no_attribution , not tracked" in text


def test_the_what_if_says_when_the_delivery_left_the_kept_log(client, staff, by_code):
    OutcomeEvent.objects.all().delete()
    client.force_login(staff)

    text = text_of(client.get(f"/health/orders/{SHOPIFY_ORDER}?brand={by_code.brand_id}"))

    assert "The platform's delivery that brought this order is no longer in the kept log." in text
