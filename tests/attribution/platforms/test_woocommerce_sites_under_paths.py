"""WooCommerce connections are keyed by their site's host and path (docs/threat-model.md, "Round six", finding
11): a WordPress site can live under a path, so two sites of one host are two shops, each delivery finding its own
connection by its X-WC-Webhook-Source. A site at the host's root is keyed by its host, as before."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, signature
from attribution.models import Order
from brands.hosts import site_key
from brands.models import PlatformConnection
from tests.attribution.platforms.conftest import WOO_SECRET, connect


@pytest.mark.parametrize(
    "given, key",
    [
        ("https://www.Shop.example/store/", "shop.example/store"),
        ("shop.example/store", "shop.example/store"),
        ("https://shop.example/", "shop.example"),
        ("https://shop.example/a/b", "shop.example/a/b"),
        ("https://shop.example/a b", None),
        ("", None),
    ],
)
def test_a_site_is_keyed_by_its_host_and_path(given, key):
    assert site_key(given) == key


def order(order_id: int) -> dict:
    return {
        "id": order_id,
        "number": str(order_id),
        "status": "processing",
        "currency": "USD",
        "total": "20.00",
    }


def deliver(client, source: str, document: dict, secret: str):
    raw = body_of(document)
    return client.generic(
        "POST",
        "/api/platforms/woocommerce",
        raw,
        content_type="application/json",
        HTTP_X_WC_WEBHOOK_SOURCE=source,
        HTTP_X_WC_WEBHOOK_TOPIC="order.created",
        HTTP_X_WC_WEBHOOK_SIGNATURE=signature(raw, secret),
        HTTP_X_WC_WEBHOOK_DELIVERY_ID=f"d-{document['id']}",
    )


def test_two_sites_of_one_host_are_two_connections_each_receiving_its_own_orders(client, prop, other_prop):
    ours = connect(prop, platform="woocommerce", shop_domain="https://shops.example/acme/", secret=WOO_SECRET)
    theirs = connect(
        other_prop, platform="woocommerce", shop_domain="shops.example/globex", secret="globex-secret"
    )

    acme = deliver(client, "https://shops.example/acme/", order(727), WOO_SECRET)
    globex = deliver(client, "https://shops.example/globex/", order(728), "globex-secret")
    forged = deliver(client, "https://shops.example/globex/", order(729), WOO_SECRET)

    assert (ours.shop_domain, theirs.shop_domain) == ("shops.example/acme", "shops.example/globex")
    assert (acme.status_code, globex.status_code, forged.status_code) == (200, 200, 401)
    assert sorted(Order.objects.values_list("brand_id", "order_id")) == sorted(
        [(prop.brand_id, "727"), (other_prop.brand_id, "728")]
    )
    assert PlatformConnection.objects.count() == 2
