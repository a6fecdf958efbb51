"""POST /api/platforms/shopify: bad input gets a clear recorded outcome, never a 5xx, and is never half-stored."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from attribution.management.demo.standin.webhook_bodies import shopify_order
from attribution.models import Order, PlatformDelivery
from health.log.models import OutcomeEvent, RefusedDeliveryCount
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET
from tests.attribution.platforms.shopify_rows import ORDER, URL, only_row, rows
from tests.factories import BrandFactory, ClickFactory

# --- bad input: a clear recorded outcome, never a 5xx, never half-stored ----------------------------


def test_a_missing_signature_is_401_and_creates_nothing(shopify, shop):
    response = shopify("orders/create", shopify_order(), signed=False)

    assert response.status_code == 401
    assert response.json()["outcome"] == "invalid_signature"
    assert "X-Shopify-Hmac-Sha256 header is missing" in response.json()["error"]
    assert not Order.objects.exists()
    assert rows() == [("shopify", "invalid_signature", 401, "")]
    assert only_row().brand_id == shop.brand_id
    assert PlatformDelivery.objects.get().verified is False


def test_a_forged_signature_is_401_and_the_brand_s_log_says_the_secret_does_not_match(shopify, shop):
    response = shopify("orders/create", shopify_order(), secret="not-the-shop-s-secret")

    assert response.status_code == 401
    assert response.json()["outcome"] == "invalid_signature"
    assert "does not match" in response.json()["error"]
    assert not Order.objects.exists()
    row = only_row()
    assert row.brand_id == shop.brand_id
    assert SHOPIFY_SECRET not in json.dumps(row.response_body) + (row.request_body or "")


def test_a_body_altered_after_signing_is_refused(client, shop):
    signed = json.dumps(shopify_order()).encode()
    from attribution.management.demo.standin.webhook_bodies import signature

    response = client.generic(
        "POST",
        URL,
        signed.replace(b"59.90", b"5990.00"),
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(signed, SHOPIFY_SECRET),
    )

    assert response.status_code == 401
    assert not Order.objects.exists()


def test_the_replaced_secret_still_signs_for_an_hour_then_is_stale(shopify, shop):
    shop.set_secret("the-rotated-secret")
    shop.save()

    within = shopify("orders/create", shopify_order(order_id=1), secret=SHOPIFY_SECRET)
    shop.secret_replaced_at = timezone.now() - timedelta(hours=2)
    shop.save()
    stale = shopify("orders/create", shopify_order(order_id=2), secret=SHOPIFY_SECRET)
    current = shopify("orders/create", shopify_order(order_id=3), secret="the-rotated-secret")

    assert within.json()["outcome"] == "no_attribution"
    assert stale.status_code == 401
    assert "signed with the secret this connection replaced" in stale.json()["error"]
    assert current.json()["outcome"] == "no_attribution"
    assert sorted(Order.objects.values_list("order_id", flat=True)) == ["1", "3"]


def test_an_unknown_shop_is_401_creates_nothing_and_no_brand_sees_it(shopify, shop):
    response = shopify("orders/create", shopify_order(), x_shopify_shop_domain="someone-else.myshopify.com")

    assert response.status_code == 401
    assert response.json()["outcome"] == "unknown_shop"
    assert not Order.objects.exists()
    assert not PlatformDelivery.objects.exists()
    assert only_row().brand_id is None


def test_a_delivery_without_the_shop_header_is_an_unknown_shop(shopify, shop):
    response = shopify("orders/create", shopify_order(), x_shopify_shop_domain="")

    assert response.status_code == 401
    assert "X-Shopify-Shop-Domain header is missing" in response.json()["error"]


def test_signature_failures_beyond_the_limit_are_answered_and_counted_not_stored(shopify, shop, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "signature_failures": "3/hour"}

    answers = [shopify("orders/create", shopify_order(), signed=False).status_code for _ in range(5)]

    assert answers == [401] * 5
    assert OutcomeEvent.objects.count() == 3
    assert PlatformDelivery.objects.filter(verified=False).count() == 3
    assert RefusedDeliveryCount.objects.get().count == 2


def test_a_body_over_the_limit_is_413_and_nothing_is_read(shopify, shop, settings):
    settings.PLATFORM_BODY_MAX_BYTES = 2048

    response = shopify("orders/create", shopify_order())

    assert response.status_code == 413
    assert response.json()["outcome"] == "invalid_params"
    assert "larger than 2 KiB" in response.json()["error"]
    assert not Order.objects.exists()
    assert only_row().brand_id == shop.brand_id


def test_a_big_order_within_the_platform_s_limit_is_taken(shopify, shop):
    order = shopify_order()
    order["line_items"] = order["line_items"] * 60  # ~90 KiB: more than an order event's 64 KiB

    response = shopify("orders/create", order)

    assert response.json()["outcome"] == "no_attribution"


def test_malformed_json_is_answered_200_with_its_outcome(shopify, shop):
    response = shopify("orders/create", body=b'{"id": 5820398473216, "subtotal_price": ')

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_params"
    assert "not JSON" in response.json()["message"]
    assert rows() == [("shopify", "invalid_params", 200, "")]
    assert not Order.objects.exists()


def test_a_body_that_is_not_an_order_is_answered_200_with_its_outcome(shopify, shop):
    response = shopify("orders/create", ["not", "an", "order"])

    assert response.json()["outcome"] == "invalid_params"
    assert not Order.objects.exists()


def test_a_price_with_a_currency_symbol_is_answered_200_with_its_fix(shopify, shop):
    response = shopify("orders/create", shopify_order(subtotal="$59.90"))

    assert response.status_code == 200
    body = response.json()
    assert body["outcome"] == "invalid_order_amount"
    assert body["message"].startswith("The order's current_subtotal_price must be a plain number")
    assert rows() == [("shopify", "invalid_order_amount", 200, ORDER)]
    assert not Order.objects.exists()


def test_a_non_iso_currency_is_answered_200_with_its_outcome(shopify, shop):
    response = shopify("orders/create", shopify_order(currency="XBT"))

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_params"
    assert "'XBT' is not an ISO 4217 currency code" in response.json()["message"]
    assert not Order.objects.exists()


def test_a_300_character_order_id_is_answered_200_with_its_outcome(shopify, shop):
    shop.order_id_source = "name"
    shop.save()

    response = shopify("orders/create", shopify_order(name="#" + "9" * 299))

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_order_id"
    assert "must be at most 255 characters" in response.json()["message"]
    assert not Order.objects.exists()


def test_an_amount_sent_as_a_json_number_counts_as_its_decimal(shopify, shop, prop, creator):
    order = shopify_order(subtotal="59.90")
    order["subtotal_price"] = order["current_subtotal_price"] = 59.90  # a number where Shopify sends text

    response = shopify("orders/create", order)

    assert response.json()["outcome"] == "no_attribution"
    assert Order.objects.get().amount == Decimal("59.90")


def test_a_body_with_a_utf8_byte_order_mark_is_read(shopify, shop):
    body = b"\xef\xbb\xbf" + json.dumps(shopify_order()).encode()

    response = shopify("orders/create", body=body)

    assert response.json()["outcome"] == "no_attribution"


def test_a_nul_character_in_the_body_is_answered_200_with_its_outcome(shopify, shop):
    body = json.dumps(shopify_order(email="shopper@example.com")).replace("shopper@", "shop\\u0000per@")

    response = shopify("orders/create", body=body.encode())

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_params"
    assert "\\u0000" in response.json()["message"]
    assert not Order.objects.exists()


def test_a_300_digit_numeric_order_id_is_answered_200_and_stores_nothing(shopify, shop):
    body = json.dumps(shopify_order()).replace('"id": 5820398473216', '"id": ' + "9" * 300, 1)

    response = shopify("orders/create", body=body.encode())

    assert response.status_code == 200
    assert response.json()["outcome"] in {"invalid_order_id", "invalid_params"}
    assert not Order.objects.exists()


def test_a_disabled_connection_s_delivery_changes_nothing(shopify, shop):
    shop.is_enabled = False
    shop.save()

    response = shopify("orders/create", shopify_order())

    assert response.status_code == 200
    assert response.json()["outcome"] == "connection_disabled"
    assert not Order.objects.exists()
    assert rows() == [("shopify", "connection_disabled", 200, ORDER)]


def test_an_inactive_brand_s_delivery_changes_nothing(shopify, shop):
    shop.brand.is_active = False
    shop.brand.save()

    response = shopify("orders/create", shopify_order())

    assert response.status_code == 200
    assert response.json()["outcome"] == "connection_disabled"
    assert "is inactive" in response.json()["message"]
    assert not Order.objects.exists()


def test_a_get_is_405_in_json(client, shop):
    response = client.get(URL)

    assert response.status_code == 405
    assert response.json()["outcome"] == "method_not_allowed"
    assert not OutcomeEvent.objects.exists()


def test_the_path_takes_a_trailing_slash_and_is_never_redirected(client, shop):
    assert client.post(URL + "/", b"{}", content_type="application/json").status_code == 401


def test_another_brand_s_secret_cannot_sign_for_this_shop(shopify, shop, other_prop):
    from tests.attribution.platforms.conftest import connect

    connect(other_prop, platform="shopify", shop_domain="globex.myshopify.com", secret="globex-secret")

    response = shopify("orders/create", shopify_order(), secret="globex-secret")

    assert response.status_code == 401
    assert not Order.objects.exists()


def test_a_delivery_costs_a_bounded_number_of_queries(
    shopify, shop, prop, creator, django_assert_max_num_queries
):
    click = ClickFactory(property=prop, creator=creator)
    shopify("orders/create", shopify_order(order_id=1))  # warms the brand resolution

    with django_assert_max_num_queries(12):
        response = shopify(
            "orders/create", shopify_order(order_id=2, note_attributes=[("sms_click_id", click.click_id)])
        )

    assert response.json()["outcome"] == "tracked"


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_new_order_s_delivery_is_stored_in_one_statement_with_its_delivery_id(
    shopify, shop, prop, creator, django_assert_num_queries
):
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement path is PostgreSQL's")
    click = ClickFactory(property=prop, creator=creator)
    warm = ClickFactory(property=prop, creator=creator)
    # Warms the brand resolution and the brand's review copy (attribution.review.settings_copy), read once per process.
    shopify("orders/create", shopify_order(order_id=1, note_attributes=[("sms_click_id", warm.click_id)]))

    # The click, then the order with its commission, outcome row and delivery id: no transaction of its own.
    with django_assert_num_queries(2):
        response = shopify(
            "orders/create", shopify_order(order_id=2, note_attributes=[("sms_click_id", click.click_id)])
        )

    assert response.json()["outcome"] == "tracked"
    assert PlatformDelivery.objects.filter(order_id="2", brand=shop.brand).count() == 1
    assert OutcomeEvent.objects.filter(order_id="2").count() == 1


def test_another_brand_s_shop_cannot_deliver_for_this_brand(shopify, shop, other_prop):
    BrandFactory(name="Unrelated")
    from tests.attribution.platforms.conftest import connect

    connect(other_prop, platform="shopify", shop_domain="globex.myshopify.com", secret="globex-secret")

    response = shopify(
        "orders/create", shopify_order(), secret="globex-secret", x_shopify_shop_domain="globex.myshopify.com"
    )

    assert response.json()["outcome"] == "no_attribution"
    assert Order.objects.get().brand_id == other_prop.brand_id
