"""Globex Demo's shops in `make run`'s stand-in (attribution.management.demo.standin.demo): the codes its Shopify
shop's orders carry, and what the document says of the shop, with the ids `sync_orders` takes. Globex Demo is the
brand the README's tour connects, because the tour sends it no order confirmation: a connected shop hands a
brand's orders off to its platform (shopify_handoff)."""

from datetime import timedelta

from attribution.management.demo.standin.demo import OTHER_SHOP
from attribution.management.demo.standin.demo_orders import BLACKLISTED_CODE, CODE
from brands.models import DiscountCode, PlatformConnection


def keep_shop_codes(brand, creator) -> None:
    """The code the shop's orders are attributed by, and a staff code excluded from tracking."""
    for code, owner, blacklisted in ((CODE, creator, False), (BLACKLISTED_CODE, None, True)):
        DiscountCode.objects.update_or_create(
            brand=brand, code=code, defaults={"creator": owner, "is_blacklisted": blacklisted}
        )


def shop_document(brand, *, now) -> dict:
    """The brand's id and its Shopify shop, with the connection's id once "Connect with Shopify" made it, and
    the first day (UTC) of the stand-in's orders: `sync_orders --since` it reads every one of them."""
    connection = (
        PlatformConnection.objects.filter(brand=brand, platform="shopify", shop_domain=OTHER_SHOP)
        .values_list("pk", flat=True)
        .first()
    )
    return {
        "id": brand.pk,
        "shopify": {
            "shop_domain": OTHER_SHOP,
            "connection_id": connection,
            "orders_since": (now.date() - timedelta(days=2)).isoformat(),
        },
    }
