"""The stand-in's world for the demo (`make run`): the demo brands' shops (attribution/management/demo), so a
newcomer can "Connect with Shopify" Globex Demo's shop, or "Connect with WooCommerce" its site, offline. Globex
Demo is the brand the README's tour sends no order confirmation to: connecting its shop hands its orders off to
the platform, and the tour's answers stay as printed."""

from datetime import UTC, datetime

from .demo_orders import add_demo_orders
from .world import World

# Globex Demo (brand other) connects its Shopify shop by OAuth on the setup page (the tour's step 7).
OTHER_SHOP = "globex-demo.myshopify.com"
# Initech Demo (brand handoff) has a typed-in connection with a signing secret (attribution.management.demo).
HANDOFF_SHOP = "initech-demo.myshopify.com"
# Globex Demo connects its WooCommerce site by key handover: {origin}/woo/globex-demo.
OTHER_SITE = "globex-demo"


def demo_world(*, origin: str, shopify_client_id: str, shopify_client_secret: str) -> World:
    world = World(
        origin=origin,
        shopify_client_id=shopify_client_id,
        shopify_client_secret=shopify_client_secret,
        plain_callbacks=True,  # the demo's service listens on plain http
    )
    world.add_shop(OTHER_SHOP, id=60001, name="Globex Demo", currency="USD", timezone="America/New_York")
    world.add_shop(HANDOFF_SHOP, id=60002, name="Initech Demo", currency="USD", timezone="America/Chicago")
    world.add_site(OTHER_SITE, name="Globex Demo", timezone="Europe/Berlin", gmt_offset=1)
    # Orders no webhook delivered: "Sync now" recovers them once the shop is connected (README, the tour).
    add_demo_orders(world, shop=OTHER_SHOP, site=OTHER_SITE, now=datetime.now(UTC))
    return world
