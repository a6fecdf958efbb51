"""Every outcome the demo world claims (spec demo-world.md; the README's curl lines), sent exactly as the
README sends them, the body built from the document; the handoff brand's Shopify shop."""

import base64
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.core.management import call_command

from attribution.models import Commission, Order
from brands.models import Brand, PlatformConnection
from health.log.models import OutcomeEvent
from tests.attribution.demo.conftest import URL, cancel

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Claim:
    outcome: str
    status: int
    brand: str | None  # whose health view shows the event
    body: Callable[[dict], dict]


def order(world, *, page="primary", brand="main", **fields) -> dict:
    body = {
        "orderId": "demo-1001",
        "orderAmount": 59.90,
        "currency": "USD",
        "page_url": world["brands"][brand]["page_urls"][page],
    }
    return {**body, **fields}


CLAIMS = {
    "tracked by click": Claim("tracked", 200, "main", lambda w: order(w, clickId=w["clicks"]["valid"])),
    "tracked by code": Claim("tracked", 200, "main", lambda w: order(w, code=w["codes"]["registered"])),
    "tracked by known shopper": Claim(
        "tracked", 200, "main", lambda w: order(w, customer_email=w["shoppers"]["known_email"])
    ),
    "tracked as a test": Claim(
        "tracked", 200, "main", lambda w: order(w, test=True, clickId=w["clicks"]["valid"])
    ),
    "no attribution": Claim("no_attribution", 200, "main", lambda w: order(w)),
    "storefront handoff": Claim(
        "shopify_handoff", 200, "handoff", lambda w: order(w, brand="handoff", clickId=w["clicks"]["handoff"])
    ),
    "blacklisted code": Claim(
        "blacklisted_code", 200, "main", lambda w: order(w, code=w["codes"]["blacklisted"])
    ),
    "expired click": Claim("expired_click", 200, "main", lambda w: order(w, clickId=w["clicks"]["expired"])),
    "cross-brand click": Claim(
        "cross_brand_click", 200, "main", lambda w: order(w, clickId=w["clicks"]["other_brand"])
    ),
    "property mismatch": Claim(
        "property_mismatch", 200, "main", lambda w: order(w, clickId=w["clicks"]["valid_secondary"])
    ),
    "unregistered property": Claim(
        "unregistered_property",
        200,
        "main",
        lambda w: order(w, page="unregistered", clickId=w["clicks"]["valid"]),
    ),
    "click not found": Claim(
        "click_not_found", 400, "main", lambda w: order(w, clickId=w["clicks"]["unknown"])
    ),
    "banned creator's click": Claim(
        "banned_user", 200, "main", lambda w: order(w, clickId=w["clicks"]["banned_creator"])
    ),
    "banned creator's code": Claim(
        "banned_user", 200, "main", lambda w: order(w, code=w["codes"]["banned_creator"])
    ),
    "invalid order amount": Claim(
        "invalid_order_amount", 400, "main", lambda w: order(w, orderAmount="$59.90")
    ),
    "invalid order id": Claim("invalid_order_id", 400, "main", lambda w: order(w, orderId="")),
    "malformed click id": Claim(
        "malformed_click_id", 400, "main", lambda w: order(w, clickId="sms_click_id=" + w["clicks"]["valid"])
    ),
    "unresolved domain": Claim(
        "unresolved_domain",
        400,
        None,
        lambda w: {**order(w), "page_url": "https://unknown-shop.example/thank-you"},
    ),
    "unregistered code": Claim(
        "unregistered_code", 200, "main", lambda w: order(w, code=w["codes"]["unregistered"])
    ),
    "invalid params": Claim("invalid_params", 400, "main", lambda w: order(w, currency="dollars")),
}


@pytest.mark.parametrize("claim", CLAIMS.values(), ids=CLAIMS.keys())
def test_the_demo_world_produces_the_outcome_it_claims(world, api, claim):
    response = api.post(URL, claim.body(world))

    assert (response.status_code, response.json()["outcome"]) == (claim.status, claim.outcome)
    event = OutcomeEvent.objects.get()
    expected_brand = Brand.objects.get(name=world["brands"][claim.brand]["name"]).id if claim.brand else None
    assert (event.outcome, event.brand_id) == (claim.outcome, expected_brand)
    assert Commission.objects.filter(order__order_id="demo-1001").exists() is (claim.outcome == "tracked")


def test_the_same_order_sent_twice_is_a_duplicate(world, api):
    body = order(world, clickId=world["clicks"]["valid"])
    assert api.post(URL, body).json()["outcome"] == "tracked"

    response = api.post(URL, body)

    assert (response.status_code, response.json()["outcome"]) == (400, "duplicate_order")
    assert Order.objects.filter(order_id="demo-1001").count() == 1


def test_a_returning_customer_earns_the_documented_returning_rate(world, api):
    body = order(world, orderAmount="100.00", is_returning_customer=True, clickId=world["clicks"]["valid"])

    assert api.post(URL, body).json()["outcome"] == "tracked"
    commission = Commission.objects.get(order__order_id="demo-1001")
    assert commission.rate_percent == Decimal(world["commission"]["returning_rate_percent"])
    assert commission.amount == Decimal("100.00") * commission.rate_percent / 100


def test_the_main_key_cancels_a_demo_order_it_tracked(world, api):
    assert api.post(URL, order(world, clickId=world["clicks"]["valid"])).json()["outcome"] == "tracked"

    response = cancel(api, world["brands"]["main"]["developer_key"], order_id="demo-1001")

    assert (response.status_code, response.json()["outcome"]) == (200, "tracked")
    assert Commission.objects.get(order__order_id="demo-1001").state == "cancelled"


def test_the_demo_self_referral_is_held_and_the_main_key_releases_it(world, api):
    """docs/integration.md's review walk-through: Ana's code with her own address is held, then released."""
    holds = world["holds"]
    body = order(world, code=holds["code"], customer_email=holds["creator_email"])
    assert api.post(URL, body).json()["outcome"] == "tracked"
    assert Commission.objects.get(order__order_id="demo-1001").state == "held"

    response = api.post(
        "/api/Affiliates/review",
        {"order_id": "demo-1001", "decision": "release", "note": "Ana's own test order, approved"},
        key=world["brands"]["main"]["developer_key"],
    )

    assert (response.status_code, response.json()["outcome"]) == (200, "released")
    assert Commission.objects.get(order__order_id="demo-1001").state == "pending"


# Django runs tests with DEBUG false, so the other tests here pass --force as production would have to.
def test_the_handoff_brand_s_shopify_shop_takes_a_signed_order_with_its_code(world, client):
    """The documented try-it (docs/integration.md): a signed orders/create from the demo shop."""
    shopify = world["brands"]["handoff"]["shopify"]
    body = json.dumps(
        {
            "id": 820982911946154508,
            "name": "#1001",
            "currency": "USD",
            "subtotal_price": "59.90",
            "total_price": "66.80",
            "test": True,
            "email": "shopper@example.com",
            "discount_codes": [{"code": world["codes"]["handoff"], "amount": "5.99", "type": "percentage"}],
        }
    ).encode()
    digest = base64.b64encode(hmac.new(shopify["webhook_secret"].encode(), body, hashlib.sha256).digest())

    response = client.generic(
        "POST",
        shopify["webhook_url"],
        body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=shopify["shop_domain"],
        HTTP_X_SHOPIFY_HMAC_SHA256=digest.decode(),
        HTTP_X_SHOPIFY_WEBHOOK_ID="demo-1",
    )

    assert response.json()["outcome"] == "tracked"
    order = Order.objects.get(brand__name=world["brands"]["handoff"]["name"])
    assert (order.order_id, order.is_test, order.via_platform) == ("820982911946154508", True, True)
    assert order.commission.amount == Decimal("4.79")  # 8 % of 59.90


def test_a_rerun_keeps_the_shop_s_webhook_secret(seed, tmp_path):
    path = tmp_path / "demo-world.json"
    first = seed(path=path)["brands"]["handoff"]["shopify"]

    again = seed(path=path)["brands"]["handoff"]["shopify"]

    assert again == first
    assert PlatformConnection.objects.get(platform="shopify").previous_secret == ""


def test_it_refuses_to_build_the_demo_world_in_production_without_force(db, settings):
    from django.core.management import CommandError

    settings.DEBUG = False
    with pytest.raises(CommandError, match="--force"):
        call_command("seed_demo", "--json", "/dev/null")
