"""`make run`'s stand-in forgets what it issued when it stops; at its start it takes back the credentials the
service keeps for its shops, so a demo shop connected in an earlier `make run` stays connected."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.management.commands.run_platform_standin import keep_service_credentials
from attribution.management.demo.standin.demo import OTHER_SHOP, OTHER_SITE, demo_world
from brands.models import PlatformConnection

pytestmark = pytest.mark.django_db
ORIGIN = "http://127.0.0.1:9100"


def connection(prop, *, platform, shop_domain, credential, scopes, site_url="", disconnected=False):
    made = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform=platform,
        shop_domain=shop_domain,
        connected_via="oauth" if platform == "shopify" else "key_handover",
        api_scopes=scopes,
        site_url=site_url,
    )
    made.set_secret("whsec")
    made.set_credential(credential)
    if disconnected:
        made.disconnected_at = timezone.now()
    made.save()
    return made


def test_the_stand_in_opens_to_the_service_s_token_and_keys_again(prop):
    world = demo_world(origin=ORIGIN, shopify_client_id="app", shopify_client_secret="secret")
    connection(
        prop, platform="shopify", shop_domain=OTHER_SHOP, credential="shpat_kept", scopes="read_orders"
    )
    keys = {"consumer_key": "ck_kept", "consumer_secret": "cs_kept"}
    connection(
        prop,
        platform="woocommerce",
        shop_domain="127.0.0.1",
        credential=json.dumps(keys),
        scopes="read_write",
        site_url=world.site_url(OTHER_SITE),
    )

    assert keep_service_credentials(world) == 2

    assert world.shops[OTHER_SHOP].tokens == {"shpat_kept": ["read_orders"]}
    assert {s["topic"] for s in world.shops[OTHER_SHOP].subscriptions} >= {"ORDERS_PAID", "APP_UNINSTALLED"}
    assert world.sites[OTHER_SITE].keys["ck_kept"]["secret"] == "cs_kept"
    assert [w["topic"] for w in world.sites[OTHER_SITE].webhooks] == [
        "order.created",
        "order.updated",
        "order.deleted",
    ]
    assert set(world.sites[OTHER_SITE].webhook_secrets.values()) == {"whsec"}


def test_a_disconnected_shop_and_a_shop_the_stand_in_does_not_hold_stay_out(prop):
    world = demo_world(origin=ORIGIN, shopify_client_id="app", shopify_client_secret="secret")
    connection(
        prop,
        platform="shopify",
        shop_domain=OTHER_SHOP,
        credential="shpat_old",
        scopes="read_orders",
        disconnected=True,
    )
    connection(
        prop,
        platform="shopify",
        shop_domain="elsewhere.myshopify.com",
        credential="shpat_x",
        scopes="read_orders",
    )

    assert keep_service_credentials(world) == 0
    assert world.shops[OTHER_SHOP].tokens == {}


def test_an_expiring_pair_is_taken_back_and_still_renews(prop):
    """A shop connected with Shopify's expiring tokens: the access token opens the shop for the time it has
    left, and the refresh token still renews it after the stand-in's restart."""
    world = demo_world(origin=ORIGIN, shopify_client_id="app", shopify_client_secret="secret")
    kept = connection(
        prop, platform="shopify", shop_domain=OTHER_SHOP, credential="shpat_kept", scopes="read_orders"
    )
    now = timezone.now()
    kept.set_credential(
        "shpat_kept",
        expires_at=now + timedelta(minutes=30),
        refresh_token="shprt_kept",
        refresh_expires_at=now + timedelta(days=60),
    )
    kept.save()

    keep_service_credentials(world)

    shop = world.shops[OTHER_SHOP]
    assert not world.expired(shop, "shpat_kept")
    assert 1790 <= shop.token_expiry["shpat_kept"] - world.clock() <= 1800
    renewed = world.refresh(OTHER_SHOP, "shprt_kept")
    assert renewed is not None and renewed["access_token"] in shop.tokens
