"""What a platform's delivery leaves in the brand's log (docs/decisions.md, "What a platform's delivery
keeps"): a verified order as the fields read, its cart attributes only the one the service reads; a refused
delivery no body at all, only its size, a hash of its bytes, the headers that matter and the verdict."""

import hashlib
import json

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, woocommerce_order
from health.log.models import OutcomeEvent

pytestmark = pytest.mark.django_db


def kept_body(row) -> dict:
    return json.loads(row.request_body)


def test_of_the_cart_s_attributes_only_the_click_is_kept(shopify, shop):
    order = shopify_order(
        note_attributes=[
            ("gift_message", "Happy birthday, Maria! Call me on +1 555 0100"),
            ("recipient_name", "Maria Lopez"),
            ("sms_click_id", "c_nothing_known"),
        ]
    )

    assert shopify("orders/create", order).status_code == 200

    row = OutcomeEvent.objects.get()
    assert kept_body(row)["note_attributes"] == [{"name": "sms_click_id", "value": "c_nothing_known"}]
    assert "Maria" not in row.request_body and "555" not in row.request_body


@pytest.fixture
def woo_order_727():
    """WooCommerce's documented order 727: the shopper's billing and shipping details in full."""
    return woocommerce_order()


def test_a_forged_woocommerce_delivery_keeps_no_body_only_what_fixes_it(woocommerce, site, woo_order_727):
    raw = body_of(woo_order_727)

    answer = woocommerce("order.created", body=raw, secret="not the site's secret")

    assert (answer.status_code, answer.json()["outcome"]) == (401, "invalid_signature")
    row = OutcomeEvent.objects.get()
    assert kept_body(row) == {
        "refused": "invalid_signature",
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "headers": {
            "X-WC-Webhook-Topic": "order.created",
            "X-WC-Webhook-Source": "https://shop.acme.example/",
            "X-WC-Webhook-ID": "12",
            "X-WC-Webhook-Delivery-ID": "8a1bcf0e2d3f4e5a6b7c8d9e0f1a2b3c",
        },
    }
    billing = woo_order_727["billing"]
    for detail in (billing["first_name"], billing["address_1"], billing["phone"], woo_order_727["order_key"]):
        assert detail not in row.request_body


def test_an_unknown_shop_s_delivery_keeps_no_body_either(shopify, shop):
    raw = body_of(shopify_order())

    answer = shopify("orders/create", body=raw, x_shopify_shop_domain="someone-else.myshopify.com")

    assert (answer.status_code, answer.json()["outcome"]) == (401, "unknown_shop")
    row = OutcomeEvent.objects.get()
    assert row.brand_id is None
    body = kept_body(row)
    assert (body["refused"], body["bytes"], body["headers"]["X-Shopify-Shop-Domain"]) == (
        "unknown_shop",
        len(raw),
        "someone-else.myshopify.com",
    )
    assert "shopper" not in row.request_body and "Linen" not in row.request_body


def test_a_body_over_the_limit_keeps_its_size_and_nothing_else(shopify, shop, settings):
    settings.PLATFORM_BODY_MAX_BYTES = 1024
    raw = body_of(shopify_order())

    answer = shopify("orders/create", body=raw)

    assert answer.status_code == 413
    body = kept_body(OutcomeEvent.objects.get())
    assert (body["refused"], body["bytes"], body["sha256"]) == ("invalid_params", len(raw), None)
