"""A brand with a Shopify shop and a WooCommerce site connected, and senders that sign as the platforms do."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, signature
from brands.models import PlatformConnection

SHOPIFY_SECRET = "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"
WOO_SECRET = "wc_secret_Qm9vbXNoYWthbGFrYQ"
SHOP = "acme-demo.myshopify.com"
SITE = "shop.acme.example"


def post_shopify(client, raw: bytes, *, topic="orders/create", webhook_id="", secret=SHOPIFY_SECRET):
    """POST `raw` to the Shopify receiver as Acme's shop sends it, signed with `secret`."""
    headers = {"HTTP_X_SHOPIFY_WEBHOOK_ID": webhook_id} if webhook_id else {}
    return client.generic(
        "POST",
        "/api/platforms/shopify",
        raw,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC=topic,
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(raw, secret),
        **headers,
    )


def connect(prop, *, platform: str, shop_domain: str, secret: str, **options) -> PlatformConnection:
    connection = PlatformConnection(
        brand=prop.brand, property=prop, platform=platform, shop_domain=shop_domain, **options
    )
    connection.set_secret(secret)
    connection.full_clean()
    connection.save()
    return connection


@pytest.fixture
def shop(prop):
    """Acme's Shopify shop, counting the subtotal and naming orders by Shopify's numeric id (the defaults)."""
    return connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)


@pytest.fixture
def site(prop):
    """Acme's WooCommerce site."""
    return connect(prop, platform="woocommerce", shop_domain=SITE, secret=WOO_SECRET)


class Sender:
    """POSTs a delivery as the platform does: the raw body, its signature and the platform's headers."""

    def __init__(self, client, path, headers):
        self.client, self.path, self.headers = client, path, headers

    def __call__(self, topic, document=None, *, body=None, secret=None, signed=True, **headers):
        raw = body if body is not None else body_of(document)
        meta = self.headers(topic, raw, secret, signed)
        meta.update({f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()})
        meta = {key: value for key, value in meta.items() if value is not None}
        return self.client.generic("POST", self.path, raw, content_type="application/json", **meta)


@pytest.fixture
def shopify(client):
    webhook_ids = iter(range(1, 10_000))

    def headers(topic, raw, secret, signed):
        return {
            "HTTP_X_SHOPIFY_TOPIC": topic,
            "HTTP_X_SHOPIFY_SHOP_DOMAIN": SHOP,
            "HTTP_X_SHOPIFY_HMAC_SHA256": signature(raw, secret or SHOPIFY_SECRET) if signed else None,
            "HTTP_X_SHOPIFY_WEBHOOK_ID": f"b54557e4-bdd9-4b37-8a5f-{next(webhook_ids):012d}",
            "HTTP_X_SHOPIFY_EVENT_ID": "98880550-7158-44d4-b7cd-2c97c8a091b5",
            "HTTP_X_SHOPIFY_API_VERSION": "2025-01",
            "HTTP_X_SHOPIFY_TRIGGERED_AT": "2026-11-24T15:15:02.117Z",
        }

    return Sender(client, "/api/platforms/shopify", headers)


@pytest.fixture
def woocommerce(client):
    def headers(topic, raw, secret, signed):
        return {
            "HTTP_USER_AGENT": "WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
            "HTTP_X_WC_WEBHOOK_SOURCE": f"https://{SITE}/",
            "HTTP_X_WC_WEBHOOK_TOPIC": topic,
            "HTTP_X_WC_WEBHOOK_RESOURCE": topic.partition(".")[0],
            "HTTP_X_WC_WEBHOOK_EVENT": topic.partition(".")[2],
            "HTTP_X_WC_WEBHOOK_SIGNATURE": signature(raw, secret or WOO_SECRET) if signed else None,
            "HTTP_X_WC_WEBHOOK_ID": "12",
            "HTTP_X_WC_WEBHOOK_DELIVERY_ID": "8a1bcf0e2d3f4e5a6b7c8d9e0f1a2b3c",
        }

    return Sender(client, "/api/platforms/woocommerce", headers)
