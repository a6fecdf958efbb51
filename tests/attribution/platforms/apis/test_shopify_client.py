"""The Shopify Admin API client against the stand-in: identity, subscriptions, and how it waits and gives up."""

import pytest

from attribution.platforms.apis.errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable
from attribution.platforms.apis.shopify import API_VERSION, THROTTLE_WAITS, ShopifyAdmin

SHOP = "acme.myshopify.com"


@pytest.fixture
def shop(standin):
    return standin.add_shop(SHOP, id=7001, name="Acme", currency="EUR", timezone="Europe/Paris")


@pytest.fixture
def waits():
    return []


@pytest.fixture
def admin(standin, shop, waits):
    token = standin.issue_token(SHOP, ["read_orders"])
    return ShopifyAdmin(SHOP, token, sleep=waits.append)


def test_identity_names_the_shop_and_the_scopes_the_token_holds(admin):
    identity = admin.identity()

    assert identity["shop"] == {
        "id": "gid://shopify/Shop/7001",
        "name": "Acme",
        "myshopifyDomain": SHOP,
        "currencyCode": "EUR",
        "ianaTimezone": "Europe/Paris",
    }
    assert identity["currentAppInstallation"] == {"accessScopes": [{"handle": "read_orders"}]}
    assert admin.served_version == API_VERSION
    assert admin.last_cost["throttleStatus"]["maximumAvailable"] == 2000


def test_it_waits_on_throttled_as_the_bucket_says_then_answers(standin, admin, waits):
    standin.throttle_next(SHOP, 2)

    assert admin.identity()["shop"]["myshopifyDomain"] == SHOP
    # (requested 2 - available 0) / 100 points a second, at least a whole point's worth
    assert waits == [0.02, 0.02]


def test_it_waits_on_a_429_throttle_too(standin, admin, waits):
    standin.throttle_next(SHOP, 1, status=429)

    assert admin.identity()["shop"]["id"] == "gid://shopify/Shop/7001"
    assert len(waits) == 1


def test_it_gives_up_when_throttling_never_ends(standin, admin, waits):
    standin.throttle_next(SHOP, THROTTLE_WAITS + 1)

    with pytest.raises(PlatformUnavailable, match="kept throttling"):
        admin.identity()
    assert len(waits) == THROTTLE_WAITS


def test_a_5xx_is_retried_with_backoff_then_answers(standin, admin, waits):
    standin.fail_next(SHOP, 2, status=502)

    assert admin.identity()["shop"]["myshopifyDomain"] == SHOP
    assert waits == [1.0, 2.0]


def test_5xx_after_every_retry_is_unavailable(standin, admin, waits):
    standin.fail_next(SHOP, 10)

    with pytest.raises(PlatformUnavailable, match="503"):
        admin.identity()
    assert waits == [1.0, 2.0, 4.0]


def test_a_revoked_token_is_credential_revoked_at_once(standin, admin, waits):
    standin.revoke(SHOP)

    with pytest.raises(CredentialRevoked, match="401"):
        admin.identity()
    assert waits == []


def test_a_retired_version_is_seen_in_served_version(shop, admin):
    shop.served_version = "2025-10"

    admin.identity()

    assert admin.served_version == "2025-10"


def test_it_subscribes_a_topic_and_lists_it(admin):
    made = admin.subscribe("orders/paid", "https://service.example/api/platforms/shopify")

    assert made["topic"] == "ORDERS_PAID"
    assert made["uri"] == "https://service.example/api/platforms/shopify"
    assert [(s["id"], s["topic"]) for s in admin.webhook_subscriptions()] == [(made["id"], "ORDERS_PAID")]


def test_a_subscription_shopify_refuses_raises_its_reason(admin):
    admin.subscribe("orders/paid", "https://service.example/hook")

    with pytest.raises(PlatformAPIError, match="already been taken"):
        admin.subscribe("orders/paid", "https://service.example/hook")


def test_subscriptions_are_read_across_pages(shop, admin):
    shop.subscriptions = [
        {
            "id": f"gid://shopify/WebhookSubscription/{n}",
            "topic": "ORDERS_PAID",
            "uri": f"https://x.example/{n}",
        }
        for n in range(130)
    ]

    assert len(admin.webhook_subscriptions()) == 130


def test_plain_http_is_refused_unless_the_host_is_listed(standin, settings):
    settings.SHOPIFY_API_ORIGIN = "http://shops.example/{shop}"

    with pytest.raises(PlatformAPIError, match="https only"):
        ShopifyAdmin(SHOP, "shpat_x")
    assert standin.calls == []
