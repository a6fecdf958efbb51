"""One receiver per storefront platform (reverse as "platforms:shopify"), with or without a trailing slash and
never redirected, as the event API's paths (docs/decisions.md, "Paths")."""

from django.urls import re_path

from .shopify import ShopifyReceiver
from .woocommerce import WooCommerceReceiver

app_name = "platforms"

urlpatterns = [
    re_path(r"^shopify/?$", ShopifyReceiver.as_view(), name="shopify"),
    re_path(r"^woocommerce/?$", WooCommerceReceiver.as_view(), name="woocommerce"),
]
