"""POST /api/platforms/shopify: Shopify's signed order webhooks record and follow a brand's orders through the
same decision, outcome table and commission writers as the event API."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.models import AmountChange, Commission, Order, PlatformDelivery
from attribution.platforms.shopify import SHOPIFY
from brands.hosts import hash_email
from brands.privacy import hashed
from health.log.models import OutcomeEvent
from tests.attribution.platforms.conftest import post_shopify
from tests.attribution.platforms.shopify_rows import ORDER, only_row, rows
from tests.factories import ClickFactory, DiscountCodeFactory, KnownShopperFactory

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


def test_a_delivery_is_taken_where_the_csrf_check_runs(shop, prop):
    # A platform's server has no session and no token: the receiver is exempt, whichever stack serves it.
    response = post_shopify(Client(enforce_csrf_checks=True), body_of(shopify_order()), webhook_id="csrf-1")

    assert (response.status_code, response.json()["outcome"]) == (200, "no_attribution")
    assert Order.objects.get().order_id == ORDER


def test_the_answer_is_compact_json_with_non_ascii_escaped(shopify, shop):
    # The answer names the currency as sent: "€" is written \u20ac, as every answer under /api/ writes it.
    response = shopify("orders/create", shopify_order(currency="€"))

    assert response["Content-Type"] == "application/json"
    assert response.content == json.dumps(response.json(), separators=(",", ":")).encode()
    assert "'€'" in response.json()["message"] and b"'\\u20ac'" in response.content


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


def test_each_address_the_order_names_is_kept_as_its_own_hash():
    document = shopify_order(email="Ana@Example.com")
    document["contact_email"] = "ana.billing@example.com"
    document["customer"]["email"] = "bo@example.com"

    kept = SHOPIFY.kept(document)

    assert (kept["email"], kept["contact_email"], kept["customer"]["email"]) == (
        hashed("Ana@Example.com"),
        hashed("ana.billing@example.com"),
        hashed("bo@example.com"),
    )
    assert SHOPIFY.kept(shopify_order(email="Ana@Example.com"))["contact_email"] == hashed("ana@example.com")


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
