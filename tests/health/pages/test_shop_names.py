"""A WooCommerce shop is named by its site (host and path), not its host, on the pages; a shop's domain and a
webhook's address wrap after their dots, slashes and hyphens, never mid-word."""

import pytest

from brands.models import PlatformConnection
from health.templatetags.health_tags import breakable

pytestmark = pytest.mark.django_db


def test_a_woocommerce_site_is_named_by_its_address_and_a_shopify_shop_by_its_domain(prop):
    woo = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="woocommerce",
        shop_domain="127.0.0.1",
        site_url="http://127.0.0.1:9100/woo/globex-demo/",
    )
    shopify = PlatformConnection(platform="shopify", shop_domain="acme.myshopify.com")

    assert woo.shop_name() == "127.0.0.1:9100/woo/globex-demo"
    assert str(woo) == "WooCommerce 127.0.0.1:9100/woo/globex-demo"
    assert str(shopify) == "Shopify acme.myshopify.com"


def test_the_setup_page_names_the_site_and_lets_addresses_wrap_between_words(alice_client, brand, prop):
    connection = PlatformConnection(
        brand=brand,
        property=prop,
        platform="woocommerce",
        shop_domain="shop.acme.example",
        site_url="https://shop.acme.example/store",
        connected_via="key_handover",
    )
    connection.set_secret("whsec")
    connection.save()

    text = alice_client.get("/health/setup/", {"brand": brand.pk}).content.decode()

    assert "shop.<wbr>acme.<wbr>example/<wbr>store" in text
    assert "/<wbr>api/<wbr>platforms/<wbr>woocommerce" in text


def test_breakable_escapes_before_it_marks_the_breaks():
    assert breakable("<b>a-b.c</b>") == "&lt;b&gt;a-<wbr>b.<wbr>c&lt;/<wbr>b&gt;"
