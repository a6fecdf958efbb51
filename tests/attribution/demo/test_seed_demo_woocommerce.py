"""`manage.py seed_demo --json` names the handoff brand's WooCommerce site as it names its Shopify shop
(brands.handoff.woocommerce: webhook_url, site_url, webhook_secret), so that both platforms can be tried from
the document (docs/integration.md, "Try it with the demo world")."""

import base64
import hashlib
import hmac
import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command

from attribution.models import Order
from brands.models import PlatformConnection

pytestmark = pytest.mark.django_db


def seeded(path) -> dict:
    call_command("seed_demo", "--force", "--json", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    return json.loads(path.read_text())


@pytest.fixture
def world(tmp_path):
    return seeded(tmp_path / "demo-world.json")


def test_the_document_names_the_woocommerce_site(world):
    site = world["brands"]["handoff"]["woocommerce"]

    assert sorted(site) == ["site_url", "webhook_secret", "webhook_url"]
    assert site["webhook_url"] == "/api/platforms/woocommerce"
    assert site["site_url"] == "https://shop.initech-demo.example/"
    connection = PlatformConnection.objects.get(platform="woocommerce")
    assert (connection.brand.name, connection.shop_domain, connection.is_pending()) == (
        world["brands"]["handoff"]["name"],
        "shop.initech-demo.example",
        False,
    )


def test_the_site_takes_a_signed_paid_order_with_the_handoff_code(world, client):
    site = world["brands"]["handoff"]["woocommerce"]
    body = json.dumps(
        {
            "id": 5001,
            "number": "5001",
            "status": "processing",
            "currency": "USD",
            "total": "66.80",
            "shipping_total": "6.90",
            "total_tax": "0.00",
            "coupon_lines": [{"code": world["codes"]["handoff"], "discount": "5.99"}],
            "meta_data": [],
        }
    ).encode()
    signature = base64.b64encode(hmac.new(site["webhook_secret"].encode(), body, hashlib.sha256).digest())

    answer = client.generic(
        "POST",
        site["webhook_url"],
        body,
        content_type="application/json",
        HTTP_X_WC_WEBHOOK_TOPIC="order.created",
        HTTP_X_WC_WEBHOOK_SOURCE=site["site_url"],
        HTTP_X_WC_WEBHOOK_SIGNATURE=signature.decode(),
        HTTP_X_WC_WEBHOOK_DELIVERY_ID="demo-woo-1",
    )

    assert answer.json()["outcome"] == "tracked", answer.json()
    order = Order.objects.get(order_id="5001")
    assert order.commission.amount == Decimal("4.79")  # 8 % of 59.90, shipping left out


def test_a_rerun_keeps_the_site_s_webhook_secret(tmp_path):
    first = seeded(tmp_path / "one.json")["brands"]["handoff"]["woocommerce"]

    again = seeded(tmp_path / "two.json")["brands"]["handoff"]["woocommerce"]

    assert again == first
    assert PlatformConnection.objects.get(platform="woocommerce").previous_secret == ""
