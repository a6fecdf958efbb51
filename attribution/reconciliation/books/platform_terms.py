"""What the storefront platforms write in their exports: the note attribute that carries the click, and each
platform's order statuses (True: the order earns nothing, cancelled or never paid). Both are the platforms'
own words, read from their modules (attribution.platforms.shopify, woocommerce) and the click id's home
(attribution.links), never written out here."""

from attribution.links import CLICK_ID_NAME
from attribution.platforms import shopify, woocommerce

CLICK_ATTRIBUTE = CLICK_ID_NAME  # the note/cart attribute sms-click.js writes on a Shopify storefront

SHOPIFY_STATUSES = (
    {"": False} | dict.fromkeys(shopify.PAID_FOR, False) | dict.fromkeys(shopify.NOT_PAID_FOR, True)
)
WOO_STATUSES = (
    {"": False}
    | dict.fromkeys(woocommerce.PAID | {woocommerce.ON_HOLD}, False)
    | dict.fromkeys(woocommerce.UNDONE | {woocommerce.FAILED} | woocommerce.UNPAID, True)
)
