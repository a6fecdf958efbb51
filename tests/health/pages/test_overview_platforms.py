"""/health/: a brand's storefront platforms on the overview: their deliveries and the capture rate by path."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


URL = reverse("health:overview")


def _both_paths(api, client, prop, creator):
    """Three orders of Acme's Shopify shop: one seen by the platform and the confirmation, one by the platform
    only, one by the confirmation only; and one delivery refused for its signature."""
    from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
    from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify

    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)

    def deliver(order_id, secret=SHOPIFY_SECRET):
        raw = body_of(shopify_order(order_id=order_id))
        return post_shopify(client, raw, webhook_id=f"w-{order_id}-{secret[:4]}", secret=secret)

    def confirm(order_id):
        body = {
            "orderId": order_id,
            "orderAmount": 10,
            "currency": "USD",
            "page_url": f"https://{prop.host}/ty",
        }
        return api.post("/api/order_confirmation", body)

    confirm(1)
    deliver(1)
    deliver(2)
    confirm(3)
    deliver(4, secret="forged")


def test_a_brand_with_a_shop_sees_its_deliveries_and_the_capture_rate_by_path(
    api, client, alice, prop, creator
):
    _both_paths(api, client, prop, creator)
    client.force_login(alice)

    response = client.get(URL)

    [figures] = response.context["platforms"]
    assert (figures.deliveries, figures.signature_failures) == (2, 1)
    assert (figures.platform_only, figures.confirmation_only, figures.both) == (1, 1, 1)
    assert round(figures.platform_share, 1) == 66.7
    text = response.content.decode()
    assert "acme-demo.myshopify.com" in text
    assert "the platform's webhook brought 66.7%, the order confirmation 66.7%." in text
    # The other ways in get their column in the outcome table once they sent something.
    assert '<th scope="col" class="num">Shopify webhook</th>' in text


def test_a_brand_without_a_shop_sees_no_platform_section(alice_client):
    response = alice_client.get(URL)

    assert response.context["platforms"] == []
    assert "Storefront platform" not in response.content.decode()


def test_bob_does_not_see_alice_s_shop(api, client, alice, bob, prop, creator):
    _both_paths(api, client, prop, creator)
    client.force_login(bob)

    response = client.get(URL)

    assert response.context["platforms"] == []
    assert "acme-demo.myshopify.com" not in response.content.decode()
