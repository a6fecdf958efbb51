"""POST /api/platforms/shopify: Shopify's signed order webhooks record, follow and cancel a brand's orders
through the same decision, outcome table and commission writers as the event API."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from attribution.durability import spool
from attribution.models import AmountChange, Commission, Order, PlatformDelivery
from attribution.replay import REPLAYED, replay_all
from brands.hosts import hash_email
from health.log.models import OutcomeEvent, RefusedDeliveryCount
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET
from tests.attribution.platforms.payloads import shopify_order
from tests.factories import BrandFactory, ClickFactory, DiscountCodeFactory, KnownShopperFactory
from tests.faults import failing_writes_to

URL = "/api/platforms/shopify"
ORDER = "5820398473216"


def rows():
    return list(
        OutcomeEvent.objects.order_by("id").values_list("endpoint", "outcome", "http_status", "order_id")
    )


def only_row():
    (row,) = OutcomeEvent.objects.all()
    return row


# --- recording an order ---------------------------------------------------------------------------


def test_orders_create_with_the_cart_s_click_is_tracked(shopify, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    response = shopify("orders/create", shopify_order(note_attributes=[("sms_click_id", click.click_id)]))

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "Order attributed; a commission was created.",
    }
    order = Order.objects.get()
    assert (order.order_id, order.amount, order.currency, order.click, order.creator) == (
        ORDER,
        Decimal("59.90"),
        "USD",
        click,
        creator,
    )
    assert (order.via_platform, order.via_api, order.property, order.page_host) == (
        True,
        False,
        prop,
        prop.host,
    )
    assert Commission.objects.get().amount == Decimal(
        "5.99"
    )  # 10 % of the subtotal, shipping and tax left out
    row = only_row()
    assert (row.endpoint, row.outcome, row.http_status, row.order_id, row.brand_id) == (
        "shopify",
        "tracked",
        200,
        ORDER,
        prop.brand_id,
    )
    assert PlatformDelivery.objects.get().delivery_id == "b54557e4-bdd9-4b37-8a5f-000000000001"


def test_the_landing_page_s_click_counts_when_the_cart_has_none(shopify, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    response = shopify(
        "orders/create",
        shopify_order(landing_site=f"/products/linen-shirt?smsclickid={click.click_id}&utm_source=ig"),
    )

    assert response.json()["outcome"] == "tracked"
    assert Order.objects.get().click == click


def test_the_cart_s_click_wins_over_the_landing_page_s(shopify, shop, prop, creator):
    older = ClickFactory(property=prop, creator=creator)
    newer = ClickFactory(property=prop, creator=creator)

    shopify(
        "orders/create",
        shopify_order(
            note_attributes=[("gift_note", "for Bo"), ("sms_click_id", newer.click_id)],
            landing_site=f"/?smsclickid={older.click_id}",
        ),
    )

    assert Order.objects.get().click == newer


def test_an_unknown_or_malformed_click_is_left_out_with_a_warning_and_the_order_kept(shopify, shop, prop):
    response = shopify(
        "orders/create",
        shopify_order(
            note_attributes=[("sms_click_id", "clk_" + "0" * 32)],
            landing_site="/?smsclickid=%22clk_quoted%22",
        ),
    )

    assert response.json()["outcome"] == "no_attribution"
    assert Order.objects.get().click is None
    warnings = only_row().warnings
    assert any("matches no click" in w for w in warnings)
    assert any("landing_site could not be read" in w for w in warnings)


def test_the_first_registered_code_of_several_wins(shopify, shop, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="SITEWIDE10", creator=None, is_blacklisted=True)
    registered = DiscountCodeFactory(brand=prop.brand, code="ANA15", creator=creator)

    response = shopify(
        "orders/create", shopify_order(codes=[("WELCOME", "5.00"), ("SITEWIDE10", "5.99"), ("ana15", "8.99")])
    )

    assert response.json()["outcome"] == "tracked"
    order = Order.objects.get()
    assert (order.discount_code, order.code_sent, order.attribution) == (registered, "ana15", "code")


def test_a_blacklisted_code_alone_is_answered_as_the_event_api_would(shopify, shop, prop):
    DiscountCodeFactory(brand=prop.brand, code="SITEWIDE10", creator=None, is_blacklisted=True)

    response = shopify("orders/create", shopify_order(codes=[("WELCOME", "5.00"), ("SITEWIDE10", "5.99")]))

    assert response.json()["outcome"] == "blacklisted_code"
    assert not Commission.objects.exists()


def test_a_known_shopper_is_matched_by_the_email_s_hash_and_the_address_is_never_kept(
    shopify, shop, prop, creator
):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("Shopper@Example.com"))

    response = shopify("orders/create", shopify_order(email="Shopper@Example.com"))

    assert response.json()["outcome"] == "tracked"
    assert Order.objects.get().attribution == "shopper"
    kept = only_row().request_body
    assert "example.com" not in kept.lower()
    assert hash_email("shopper@example.com") in kept
    for detail in ("Harbour Road", "Ana", "555 0100", "203.0.113.77"):
        assert detail not in kept


def test_the_commission_keeps_the_order_s_path_and_returning_shopper(shopify, shop, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("shopper@example.com"))
    document = shopify_order()
    document["customer"]["orders_count"] = 3  # as API versions before 2022-04 send it

    assert shopify("orders/create", document).json()["outcome"] == "tracked"

    order, commission = Order.objects.get(), Commission.objects.get()
    assert (order.attribution, order.is_returning_customer) == ("shopper", True)
    assert (commission.attribution, commission.is_returning_customer) == ("shopper", True)


def test_a_test_order_goes_to_the_test_namespace(shopify, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    shopify("orders/create", shopify_order(test=True, note_attributes=[("sms_click_id", click.click_id)]))

    assert Order.objects.get().is_test is True
    assert Commission.objects.get().is_test is True
    assert only_row().is_test is True


def test_the_total_and_the_order_s_name_when_the_connection_says_so(shopify, shop, prop, creator):
    shop.amount_counted, shop.order_id_source = "total", "name"
    shop.save()
    click = ClickFactory(property=prop, creator=creator)

    shopify("orders/create", shopify_order(name="#1001", note_attributes=[("sms_click_id", click.click_id)]))

    order = Order.objects.get()
    assert (order.order_id, order.amount) == ("#1001", Decimal("71.35"))


def test_orders_paid_after_orders_create_changes_nothing(shopify, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    order = shopify_order(note_attributes=[("sms_click_id", click.click_id)])
    shopify("orders/create", {**order, "financial_status": "pending"})

    response = shopify("orders/paid", order)

    assert response.status_code == 200
    assert response.json()["outcome"] == "already_received"
    assert (Order.objects.count(), Commission.objects.count()) == (1, 1)
    assert [r[1] for r in rows()] == ["tracked", "already_received"]


def test_orders_paid_first_records_the_order_and_orders_create_then_changes_nothing(shopify, shop, prop):
    shopify("orders/paid", shopify_order())

    response = shopify("orders/create", shopify_order())

    assert response.json()["outcome"] == "already_received"
    assert Order.objects.count() == 1


def test_a_redelivery_is_answered_200_and_has_no_second_effect(shopify, shop, prop):
    first = shopify("orders/create", shopify_order(), x_shopify_webhook_id="b54557e4-retried")

    again = shopify("orders/create", shopify_order(), x_shopify_webhook_id="b54557e4-retried")

    assert first.json()["outcome"] == "no_attribution"
    assert again.status_code == 200
    assert again.json() == {
        "success": True,
        "outcome": "redelivery",
        "message": "Delivery b54557e4-retried was already received; this copy changed nothing.",
    }
    assert Order.objects.count() == 1
    assert PlatformDelivery.objects.count() == 1
    assert [r[1] for r in rows()] == ["no_attribution", "redelivery"]


def test_a_click_older_than_the_window_is_judged_at_the_order_s_creation(shopify, shop, prop, creator):
    """Shopify retries for hours: the window is judged when the order was placed, not when it arrived."""
    placed = timezone.now() - timedelta(days=3)
    click = ClickFactory(property=prop, creator=creator, clicked_at=placed - timedelta(days=29))

    response = shopify(
        "orders/create",
        shopify_order(created_at=placed.isoformat(), note_attributes=[("sms_click_id", click.click_id)]),
    )

    assert response.json()["outcome"] == "tracked"


# --- following an order ------------------------------------------------------------------------------


@pytest.fixture
def tracked(shopify, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    shopify("orders/create", shopify_order(note_attributes=[("sms_click_id", click.click_id)]))
    return Commission.objects.get()


def test_orders_updated_makes_the_commission_follow_the_new_subtotal(shopify, tracked):
    response = shopify(
        "orders/updated",
        shopify_order(
            current_subtotal="29.95", financial_status="partially_refunded", updated_at="2026-11-25T09:00:00Z"
        ),
    )

    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": f"The commission of order {ORDER} now follows the new total 29.95 USD.",
    }
    tracked.refresh_from_db()
    assert (tracked.order_amount, tracked.amount) == (Decimal("29.95"), Decimal("3.00"))
    change = AmountChange.objects.get()
    assert (change.old_amount, change.new_amount) == (Decimal("5.99"), Decimal("3.00"))
    assert change.request_id == OutcomeEvent.objects.latest("id").request_id
    # The log tells the order arriving from its commission following it.
    assert [e.endpoint for e in OutcomeEvent.objects.order_by("id")] == ["shopify", "shopify_change"]


def test_orders_updated_with_the_same_amount_is_ignored(shopify, tracked):
    response = shopify("orders/updated", shopify_order(updated_at="2026-11-25T09:00:00Z"))

    assert response.json()["outcome"] == "ignored"
    assert not AmountChange.objects.exists()


def test_an_older_version_arriving_after_a_newer_one_is_ignored(shopify, tracked):
    shopify("orders/updated", shopify_order(current_subtotal="29.95", updated_at="2026-11-25T10:00:00Z"))

    response = shopify(
        "orders/updated", shopify_order(current_subtotal="49.90", updated_at="2026-11-25T09:00:00Z")
    )

    assert response.json()["outcome"] == "ignored"
    assert "older than one already applied" in response.json()["message"]
    tracked.refresh_from_db()
    assert tracked.order_amount == Decimal("29.95")


def test_orders_updated_of_a_fully_refunded_order_cancels_its_commission(shopify, tracked):
    response = shopify(
        "orders/updated",
        shopify_order(
            current_subtotal="0.00", financial_status="refunded", updated_at="2026-11-25T09:00:00Z"
        ),
    )

    assert response.json()["outcome"] == "tracked"
    assert response.json()["message"] == f"The commission of order {ORDER} was cancelled."
    tracked.refresh_from_db()
    assert tracked.state == "cancelled"


def test_orders_cancelled_cancels_and_a_second_is_already_cancelled(shopify, tracked):
    cancelled = shopify_order(cancelled_at="2026-11-25T09:00:00Z", updated_at="2026-11-25T09:00:00Z")

    first = shopify("orders/cancelled", cancelled)
    second = shopify("orders/cancelled", cancelled)

    assert (first.json()["outcome"], second.json()["outcome"]) == ("tracked", "already_cancelled")
    tracked.refresh_from_db()
    assert tracked.state == "cancelled"
    assert [e.endpoint for e in OutcomeEvent.objects.order_by("id")][1:] == ["shopify_change"] * 2


def test_orders_updated_of_an_order_never_received_is_order_not_found(shopify, shop):
    response = shopify("orders/updated", shopify_order(order_id=999))

    assert response.status_code == 200
    assert response.json()["outcome"] == "order_not_found"
    assert not Order.objects.exists()


def test_any_other_topic_is_answered_200_and_recorded_as_ignored(shopify, shop):
    response = shopify("orders/fulfilled", shopify_order())

    assert response.status_code == 200
    assert response.json()["outcome"] == "ignored"
    assert rows() == [("shopify", "ignored", 200, "")]
    assert not Order.objects.exists()


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
    from tests.attribution.platforms.payloads import signature

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
    # Warms the brand resolution and the brand's review copy (attribution.review.config), read once per process.
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


# --- faults on our side: kept and answered 200, or answered 5xx when they could not be kept ------------


def _refuse(*args, **kwargs):
    raise OperationalError("server closed the connection unexpectedly")


def test_a_delivery_the_database_refuses_is_spooled_answered_200_and_replayed_once(
    shopify, shop, prop, creator, monkeypatch
):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        response = shopify("orders/create", shopify_order(note_attributes=[("sms_click_id", click.click_id)]))

    assert response.status_code == 200
    assert response.json()["outcome"] == "insert_failed"
    assert not Order.objects.exists()
    assert not PlatformDelivery.objects.exists()  # rolled back with the order: the replay takes the id
    [entry] = spool.pending()
    assert entry.event["delivery_id"] == "b54557e4-bdd9-4b37-8a5f-000000000001"
    assert "shopper@example.com" not in json.dumps(entry.document)
    assert "Harbour Road" not in entry.body

    assert replay_all().replayed == 1
    assert replay_all().replayed == 0
    order = Order.objects.get()
    assert (order.outcome, order.click, order.received_at) == ("tracked", click, entry.received_at)
    assert Commission.objects.count() == 1
    row = OutcomeEvent.objects.get()  # the insert_failed row, now with its real outcome
    assert (row.endpoint, row.outcome, row.answered_outcome) == ("shopify", "tracked", "insert_failed")
    assert REPLAYED in row.warnings


def test_a_redelivery_of_a_spooled_delivery_counts_once(shopify, shop, monkeypatch):
    with failing_writes_to("attribution_order"):
        shopify("orders/create", shopify_order(), x_shopify_webhook_id="kept-then-retried")
    replay_all()

    again = shopify("orders/create", shopify_order(), x_shopify_webhook_id="kept-then-retried")

    assert again.json()["outcome"] == "redelivery"
    assert Order.objects.count() == 1


def test_a_delivery_that_could_not_be_kept_is_answered_503_for_the_platform_to_retry(
    shopify, shop, monkeypatch
):
    monkeypatch.setattr(
        "attribution.durability.spool._write", lambda document: (_ for _ in ()).throw(OSError("disk full"))
    )

    with failing_writes_to("attribution_order"):
        response = shopify("orders/create", shopify_order())

    assert response.status_code == 503
    assert response.json()["success"] is False
    assert not Order.objects.exists()


def test_a_delivery_that_cannot_be_verified_with_the_database_away_is_503(shopify, shop, monkeypatch):
    monkeypatch.setattr("brands.resolution.connection_of_shop", _refuse)

    response = shopify("orders/create", shopify_order())

    assert response.status_code == 503
    assert response.json() == {
        "success": False,
        "outcome": "insert_failed",
        "error": "The delivery could not be verified or kept on our side; the platform sends it again. "
        "Nothing to change.",
    }


def test_a_replaced_secret_no_key_opens_any_more_does_not_stop_the_current_one(shopify, shop, settings):
    """The keys changed after a rotation: the current secret was sealed again, the replaced one cannot be read."""
    from cryptography.fernet import Fernet

    settings.PLATFORM_SECRET_KEYS = [Fernet.generate_key().decode()]
    shop.secret = ""
    shop.set_secret(SHOPIFY_SECRET)
    shop.previous_secret = "gAAAAAsealed-under-a-key-long-gone"
    shop.secret_replaced_at = timezone.now()
    shop.save()

    response = shopify("orders/create", shopify_order())

    assert response.json()["outcome"] == "no_attribution"
