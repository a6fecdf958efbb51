"""A shop whose connection waits for approval is told so only when the delivery is signed with that claim's
secret (the shop itself, or the brand that typed the secret): anyone else is answered as for an unknown shop, so
the answers never tell which shops are being onboarded (docs/threat-model.md, "The platforms' webhooks")."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from brands.models import PlatformConnection
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, post_shopify

pytestmark = pytest.mark.django_db

UNKNOWN = {
    "success": False,
    "outcome": "unknown_shop",
    "error": f"No connection for the Shopify shop {SHOP}. Fix: add it on your Setup page.",
}


@pytest.fixture
def claim(brand, prop):
    """Acme's claim on SHOP, typed on its setup page and not approved yet."""
    connection = PlatformConnection(
        brand=brand, property=prop, platform="shopify", shop_domain=SHOP, approved_at=None
    )
    connection.set_secret(SHOPIFY_SECRET)
    connection.save()
    return connection


def unsigned(client, raw: bytes):
    return client.generic(
        "POST",
        "/api/platforms/shopify",
        raw,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
    )


def test_an_unsigned_delivery_for_a_pending_shop_is_answered_as_for_an_unknown_shop(client, claim):
    answer = unsigned(client, body_of(shopify_order()))

    assert (answer.status_code, answer.json()) == (401, UNKNOWN)


def test_a_delivery_signed_with_another_secret_is_answered_as_for_an_unknown_shop(client, claim):
    answer = post_shopify(client, body_of(shopify_order()), secret="a guess at the shop's secret")

    assert (answer.status_code, answer.json()) == (401, UNKNOWN)


def test_the_answer_is_the_unknown_shop_s_whether_or_not_a_claim_waits(client, claim):
    claimed = unsigned(client, body_of(shopify_order()))
    claim.delete()

    nobody = unsigned(client, body_of(shopify_order()))

    assert (claimed.status_code, claimed.json()) == (nobody.status_code, nobody.json())


def test_a_delivery_signed_with_the_claim_s_secret_is_told_it_waits_for_approval(client, claim):
    answer = post_shopify(client, body_of(shopify_order()))

    assert (answer.status_code, answer.json()["outcome"]) == (401, "unknown_shop")
    assert "waits for your account manager's approval" in answer.json()["error"]
