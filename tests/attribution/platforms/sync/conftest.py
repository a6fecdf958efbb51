"""A brand's Shopify shop connected by OAuth and WooCommerce site connected by key handover, both held by the
platforms' stand-in (the `standin` fixture), a clock the stand-in's cost bucket and the sync's waits share, and
a way to send an order by webhook as the platform does."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from attribution.management.demo.standin.order_data import shopify_order, woo_order
from attribution.management.demo.standin.webhook_bodies import body_of, signature
from attribution.platforms.sync.shopify_orders import as_webhook_order
from attribution.platforms.sync.webhooks import SHOPIFY_TOPICS, WOOCOMMERCE_TOPICS, receiver_url
from brands.models import PlatformConnection
from tests.platform_standin import CLIENT_SECRET

SHOP = "acme-sync.myshopify.com"
SITE = "acme-woo"
WOO_SECRET = "wc_webhook_secret_of_the_service"


class Clock:
    """Monotonic seconds for the stand-in's bucket; `sleep` moves them on (and records each wait), never waits."""

    def __init__(self):
        self.seconds, self.waits = 1000.0, []

    def __call__(self) -> float:
        return self.seconds

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.seconds += seconds


@pytest.fixture
def clock(standin):
    clock = Clock()
    standin.clock = clock
    return clock


@pytest.fixture
def yesterday():
    """The start of yesterday (UTC): the day whose orders the tests place."""
    today = timezone.now().astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return today - timedelta(days=1)


@pytest.fixture
def shopify_shop(standin, clock, prop):
    """Acme's shop on the stand-in, connected by OAuth: its expiring pair sealed, its order topics subscribed."""
    shop = standin.add_shop(SHOP, currency="USD", timezone="UTC")
    pair = standin.issue_expiring_token(SHOP, ["read_orders"])
    for topic in SHOPIFY_TOPICS:
        shop.subscriptions.append(
            {
                "id": f"gid://shopify/WebhookSubscription/{standin.next_id()}",
                "topic": topic.upper().replace("/", "_"),
                "uri": receiver_url("shopify"),
                "format": "JSON",
                "createdAt": "2026-11-01T00:00:00Z",
                "updatedAt": "2026-11-01T00:00:00Z",
            }
        )
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain=SHOP,
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        api_scopes="read_orders",
        shop_timezone="UTC",
    )
    now = timezone.now()
    connection.set_credential(
        pair["access_token"],
        expires_at=now + timedelta(seconds=pair["expires_in"]),
        refresh_token=pair["refresh_token"],
        refresh_expires_at=now + timedelta(seconds=pair["refresh_token_expires_in"]),
    )
    connection.save()
    shop.connection = connection
    return shop


@pytest.fixture
def woo_site(standin, clock, prop):
    """Acme's WooCommerce site on the stand-in, connected by key handover with read_write keys and the
    service's three order webhooks."""
    site = standin.add_site(SITE, timezone="UTC", gmt_offset=0)
    key, secret, _ = standin.issue_keys(SITE, "read_write")
    for topic in WOOCOMMERCE_TOPICS:
        webhook_id = standin.next_id()
        site.webhooks.append(
            {
                "id": webhook_id,
                "name": topic,
                "status": "active",
                "topic": topic,
                "delivery_url": receiver_url("woocommerce"),
            }
        )
        site.webhook_secrets[webhook_id] = WOO_SECRET
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="woocommerce",
        shop_domain="acme-woo.example",
        site_url=standin.site_url(SITE),
        connected_via=PlatformConnection.ConnectedVia.KEY_HANDOVER,
        api_scopes="read_write",
        shop_timezone="UTC",
    )
    connection.set_secret(WOO_SECRET)
    connection.set_credential(json.dumps({"consumer_key": key, "consumer_secret": secret}))
    connection.save()
    site.connection = connection
    return site


def deliver_shopify(client, node: dict, *, topic: str = "orders/create", delivery: str = ""):
    """Send the shop's order `node` (the orders query's shape) by webhook, as Shopify does for the app."""
    raw = body_of(as_webhook_order(node))
    return client.generic(
        "POST",
        "/api/platforms/shopify",
        raw,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC=topic,
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(raw, CLIENT_SECRET),
        HTTP_X_SHOPIFY_WEBHOOK_ID=delivery or f"{topic}-{node['legacyResourceId']}-{node['updatedAt']}",
    )


def deliver_woo(client, order: dict, *, topic: str = "order.created"):
    raw = body_of(order)
    return client.generic(
        "POST",
        "/api/platforms/woocommerce",
        raw,
        content_type="application/json",
        HTTP_X_WC_WEBHOOK_TOPIC=topic,
        HTTP_X_WC_WEBHOOK_SOURCE="https://acme-woo.example/",
        HTTP_X_WC_WEBHOOK_SIGNATURE=signature(raw, WOO_SECRET),
        HTTP_X_WC_WEBHOOK_DELIVERY_ID=f"{order['id']}-{order['date_modified_gmt']}",
    )


def at(day: datetime, hours: float) -> datetime:
    return day + timedelta(hours=hours)


__all__ = ["at", "deliver_shopify", "deliver_woo", "shopify_order", "woo_order"]
