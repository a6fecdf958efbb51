"""The platforms' ways in, under /api/platforms/: one receiver per registered platform (attribution.platforms.registry)
at /api/platforms/<name>, reversed as "platforms:<name>", with or without a trailing slash and never redirected, as
the event API's paths (docs/decisions.md, "Paths"); the Shopify app's own webhooks (app/uninstalled and the
compliance topics, one address each) and WooCommerce's key handover callback (attribution.platforms.connect)."""

from django.urls import re_path

from .connect import views as connect_views
from .receiver import Receiver
from .registry import platforms

app_name = "platforms"

urlpatterns = [
    re_path(rf"^{platform.name}/?$", Receiver.as_view(platform=platform), name=platform.name)
    for platform in platforms()
] + [
    re_path(r"^shopify/app/(?P<kind>[a-z-]+)/?$", connect_views.shopify_app_webhook, name="shopify_app"),
    re_path(r"^woocommerce/keys/?$", connect_views.woocommerce_keys_callback, name="woocommerce_keys"),
]
