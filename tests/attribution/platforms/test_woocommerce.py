"""POST /api/platforms/woocommerce: WooCommerce's signed order webhooks record a paid order, follow its total and
refunds, and cancel it; its ping is answered so the webhook activates."""

from decimal import Decimal

from attribution.management.demo.standin.webhook_bodies import woocommerce_order
from attribution.models import AmountChange, Commission, Order, PlatformDelivery
from health.log.models import OutcomeEvent
from tests.factories import ClickFactory, DiscountCodeFactory

URL = "/api/platforms/woocommerce"


def outcomes():
    return list(OutcomeEvent.objects.order_by("id").values_list("outcome", flat=True))


def test_the_ping_sent_when_a_webhook_is_saved_is_answered_200(client, site):
    response = client.post(
        URL,
        "webhook_id=12",
        content_type="application/x-www-form-urlencoded",
        HTTP_USER_AGENT="WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "ping"
    assert not OutcomeEvent.objects.exists()


def test_a_paid_order_created_is_recorded_with_its_meta_click(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    response = woocommerce("order.created", woocommerce_order(meta=[("_sms_click_id", click.click_id)]))

    assert response.status_code == 200
    assert response.json()["outcome"] == "tracked"
    order = Order.objects.get()
    # 71.35 less 6.90 shipping and 4.55 tax: what the connection counts by default.
    assert (order.order_id, order.amount, order.click) == ("727", Decimal("59.90"), click)
    assert Commission.objects.get().amount == Decimal("5.99")
    row = OutcomeEvent.objects.get()
    assert (row.endpoint, row.outcome, row.http_status, row.brand_id) == (
        "woocommerce",
        "tracked",
        200,
        prop.brand_id,
    )
    for detail in ("Harbour Road", "shopper@example.com", "203.0.113.77"):
        assert detail not in row.request_body


def test_the_full_total_when_the_connection_counts_it(woocommerce, site):
    site.amount_counted = "total"
    site.save()

    woocommerce("order.created", woocommerce_order())

    assert Order.objects.get().amount == Decimal("71.35")


def test_the_order_number_when_the_connection_names_orders_by_it(woocommerce, site):
    site.order_id_source = "name"
    site.save()

    woocommerce("order.created", woocommerce_order(order_id=727, number="WC-2026-0727"))

    assert Order.objects.get().order_id == "WC-2026-0727"


def test_a_pending_order_is_ignored_until_an_update_says_it_is_paid(woocommerce, site, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA15", creator=creator)

    pending = woocommerce("order.created", woocommerce_order(status="pending", coupons=[("ana15", "8.99")]))
    paid = woocommerce(
        "order.updated",
        woocommerce_order(status="processing", coupons=[("ana15", "8.99")], modified="2026-11-24T15:20:00"),
    )

    assert pending.json()["outcome"] == "ignored"
    assert "727 is pending" in pending.json()["message"]
    assert paid.json()["outcome"] == "tracked"
    assert Order.objects.get().attribution == "code"
    # The update that recorded the order is an order arriving, not a change.
    assert [e.endpoint for e in OutcomeEvent.objects.order_by("id")] == ["woocommerce", "woocommerce"]


def test_the_first_registered_coupon_wins(woocommerce, site, prop, creator):
    registered = DiscountCodeFactory(brand=prop.brand, code="ANA15", creator=creator)

    woocommerce("order.created", woocommerce_order(coupons=[("freeship", "6.90"), ("ana15", "8.99")]))

    assert Order.objects.get().discount_code == registered


def test_an_update_of_a_recorded_order_follows_its_refunds(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    response = woocommerce(
        "order.updated",
        woocommerce_order(status="completed", refunds=["-19.90"], modified="2026-11-26T08:00:00"),
    )

    assert response.json()["outcome"] == "tracked"
    commission = Commission.objects.get()
    assert (commission.order_amount, commission.amount) == (Decimal("40.00"), Decimal("4.00"))
    assert AmountChange.objects.count() == 1
    assert OutcomeEvent.objects.latest("id").endpoint == "woocommerce_change"


def test_an_update_that_changes_nothing_is_ignored(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    response = woocommerce(
        "order.updated", woocommerce_order(status="completed", modified="2026-11-26T08:00:00")
    )

    assert response.json()["outcome"] == "ignored"
    assert not AmountChange.objects.exists()


def test_a_cancelled_or_refunded_order_cancels_its_commission(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    response = woocommerce(
        "order.updated", woocommerce_order(status="refunded", modified="2026-11-26T08:00:00")
    )

    assert response.json()["outcome"] == "tracked"
    assert Commission.objects.get().state == "cancelled"


def test_a_deleted_order_cancels_its_commission(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    response = woocommerce("order.deleted", {"id": 727})

    assert response.json()["outcome"] == "tracked"
    assert Commission.objects.get().state == "cancelled"


def test_a_deleted_order_cannot_be_found_by_its_number(woocommerce, site):
    site.order_id_source = "name"
    site.save()

    response = woocommerce("order.deleted", {"id": 727})

    assert response.json()["outcome"] == "ignored"
    assert "carries only its id" in response.json()["message"]


def test_two_deliveries_in_one_second_share_woocommerce_s_id_and_both_count(woocommerce, site, prop, creator):
    """WooCommerce's delivery id is the webhook's id and the second: the id kept adds the body's digest."""
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    refunded_a_bit = woocommerce(
        "order.updated",
        woocommerce_order(status="processing", refunds=["-9.90"], modified="2026-11-26T08:00:00"),
    )
    same_again = woocommerce(
        "order.updated",
        woocommerce_order(status="processing", refunds=["-9.90"], modified="2026-11-26T08:00:00"),
    )

    assert (refunded_a_bit.json()["outcome"], same_again.json()["outcome"]) == ("tracked", "redelivery")
    assert PlatformDelivery.objects.count() == 2


def test_the_subtotal_of_an_order_with_an_unreadable_total_is_refused_200(woocommerce, site):
    response = woocommerce("order.created", woocommerce_order(total="$71.35"))

    assert response.status_code == 200
    assert response.json()["outcome"] == "invalid_order_amount"
    assert response.json()["message"].startswith("The order's total must be a plain number")
    assert not Order.objects.exists()


def test_a_forged_signature_is_401_and_creates_nothing(woocommerce, site):
    response = woocommerce("order.created", woocommerce_order(), secret="guessed")

    assert response.status_code == 401
    assert response.json()["outcome"] == "invalid_signature"
    assert "X-WC-Webhook-Signature" in response.json()["error"]
    assert not Order.objects.exists()
    assert OutcomeEvent.objects.get().brand_id == site.brand_id


def test_a_site_that_is_not_connected_is_an_unknown_shop(woocommerce, site):
    response = woocommerce(
        "order.created", woocommerce_order(), x_wc_webhook_source="https://elsewhere.example/"
    )

    assert response.status_code == 401
    assert response.json()["outcome"] == "unknown_shop"
    assert not Order.objects.exists()


def test_another_topic_is_ignored(woocommerce, site):
    response = woocommerce("product.updated", {"id": 93, "name": "Linen shirt"})

    assert response.status_code == 200
    assert outcomes() == ["ignored"]
