"""One receiver per registered storefront platform (attribution.platforms.registry), at /api/platforms/<name>
and reversed as "platforms:<name>", with or without a trailing slash and never redirected, as the event API's
paths (docs/decisions.md, "Paths")."""

from django.urls import re_path

from .base import Receiver
from .connect.views import shopify_app_webhook, woocommerce_keys_callback
from .registry import platforms

app_name = "platforms"

urlpatterns = [
    re_path(rf"^{platform.name}/?$", Receiver.as_view(platform=platform), name=platform.name)
    for platform in platforms()
] + [
    # Issue 47, connecting a shop (attribution.platforms.connect): the Shopify app's own webhooks (app/uninstalled
    # and the compliance topics, one address each) and WooCommerce's key handover callback.
    re_path(r"^shopify/app/(?P<kind>[a-z-]+)/?$", shopify_app_webhook, name="shopify_app"),
    re_path(r"^woocommerce/keys/?$", woocommerce_keys_callback, name="woocommerce_keys"),
]
