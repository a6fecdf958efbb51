"""One order, two paths: a brand whose storefront platform handles its orders receives each order by the
platform's webhook and by its order confirmation (the thank-you page's snippet), in either order. The
order confirmation is answered shopify_handoff whatever comes; it adds its click id and code where the
platform's order carries none; the two give one order and one commission."""

from decimal import Decimal

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, signature
from attribution.models import Commission, Order
from health.log.models import OutcomeEvent
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect
from tests.factories import ClickFactory, DiscountCodeFactory

ORDER = "5820398473216"


@pytest.fixture
def shop(prop):
    return connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)


@pytest.fixture
def confirm(api, prop):
    def send(**fields):
        body = {
            "orderId": ORDER,
            "orderAmount": 71.35,  # the browser sends the total; the platform's counted amount wins
            "currency": "USD",
            "page_url": f"https://{prop.host}/checkouts/c/thank-you",
            **fields,
        }
        return api.post("/api/order_confirmation", body)

    return send


@pytest.fixture
def deliver(client):
    def send(topic="orders/create", **order):
        raw = body_of(shopify_order(**order))
        return client.generic(
            "POST",
            "/api/platforms/shopify",
            raw,
            content_type="application/json",
            HTTP_X_SHOPIFY_TOPIC=topic,
            HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
            HTTP_X_SHOPIFY_HMAC_SHA256=signature(raw, SHOPIFY_SECRET),
            HTTP_X_SHOPIFY_WEBHOOK_ID=f"{topic}-{len(raw)}-{OutcomeEvent.objects.count()}",
        )

    return send


def test_the_order_confirmation_alone_is_handed_off_and_makes_no_commission(confirm, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    response = confirm(clickId=click.click_id, code="ANA15")

    assert response.status_code == 200
    assert response.json()["outcome"] == "shopify_handoff"
    order = Order.objects.get()
    assert (order.outcome, order.via_api, order.via_platform) == ("shopify_handoff", True, False)
    assert (order.click_sent, order.code_sent) == (click.click_id, "ANA15")  # kept for the platform's order
    assert not Commission.objects.exists()


def test_the_platform_s_order_after_it_uses_the_confirmation_s_click(confirm, deliver, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    confirm(clickId=click.click_id)

    response = deliver()

    assert response.json()["outcome"] == "tracked"
    order = Order.objects.get()
    assert (order.via_api, order.via_platform, order.click, order.outcome) == (True, True, click, "tracked")
    assert order.amount == Decimal("59.90")  # the platform's subtotal, not the browser's total
    assert Commission.objects.get().amount == Decimal("5.99")
    assert order.trace[0]["signal"] == "join"
    assert "taken from the order confirmation" in order.trace[0]["detail"]
    assert order.trace[1]["result"] == "attributed"


def test_the_confirmation_after_the_platform_s_order_attributes_it_and_is_still_handed_off(
    confirm, deliver, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    assert deliver().json()["outcome"] == "no_attribution"

    response = confirm(clickId=click.click_id)

    assert response.json()["outcome"] == "shopify_handoff"
    order = Order.objects.get()
    assert (order.via_api, order.via_platform, order.outcome, order.click) == (True, True, "tracked", click)
    assert order.amount == Decimal("59.90")
    assert Commission.objects.count() == 1


def test_a_joined_order_s_commission_keeps_the_joined_decision_s_path_and_shopper(
    confirm, deliver, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    assert deliver().json()["outcome"] == "no_attribution"

    confirm(clickId=click.click_id, is_returning_customer=True)

    order, commission = Order.objects.get(), Commission.objects.get()
    assert (order.attribution, order.is_returning_customer) == ("click", True)
    assert (commission.attribution, commission.is_returning_customer) == ("click", True)
    # Created by the second arrival: the Creators page counts the order from then (docs/health.md).
    assert commission.created_at == OutcomeEvent.objects.order_by("id").last().received_at
    assert commission.created_at > order.received_at


def test_the_platform_s_own_code_wins_over_the_confirmation_s_click(confirm, deliver, shop, prop, creator):
    other = ClickFactory(property=prop)
    code = DiscountCodeFactory(brand=prop.brand, code="ANA15", creator=creator)
    confirm(clickId=other.click_id)

    deliver(codes=[("ANA15", "8.99")])

    order = Order.objects.get()
    # The click counts (the platform's order had none), and ranks before a code in the decision order.
    assert order.click == other
    assert order.code_sent == "ANA15"
    assert order.discount_code is None
    assert Commission.objects.get().creator == other.creator
    assert code.creator == creator


def test_the_confirmation_s_code_counts_when_the_platform_s_order_has_none(
    confirm, deliver, shop, prop, creator
):
    DiscountCodeFactory(brand=prop.brand, code="ANA15", creator=creator)
    deliver()

    confirm(code="ana15")

    order = Order.objects.get()
    assert (order.outcome, order.attribution, order.creator) == ("tracked", "code", creator)


def test_the_confirmation_brings_nothing_new_and_the_platform_s_decision_stands(
    confirm, deliver, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    deliver(note_attributes=[("sms_click_id", click.click_id)])

    confirm(clickId=click.click_id)

    order = Order.objects.get()
    assert (order.outcome, order.via_api) == ("tracked", True)
    assert order.trace[0]["signal"] == "join"
    assert Commission.objects.count() == 1


def test_a_second_order_confirmation_is_a_duplicate_as_for_any_brand(confirm, deliver, shop):
    deliver()
    assert confirm().json()["outcome"] == "shopify_handoff"

    again = confirm()

    assert again.status_code == 400
    assert again.json()["outcome"] == "duplicate_order"
    assert Order.objects.count() == 1


def test_an_unknown_click_of_the_confirmation_is_left_out_and_noted(confirm, deliver, shop):
    confirm(clickId="clk_" + "f" * 32)

    assert deliver().json()["outcome"] == "no_attribution"
    trace = Order.objects.get().trace
    assert [step["result"] for step in trace] == ["joined", "click_not_found", "not_known"]


def test_the_test_namespace_joins_only_test_orders(confirm, deliver, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    confirm(clickId=click.click_id, test=True)

    deliver()

    assert sorted(Order.objects.values_list("is_test", "outcome")) == [
        (False, "no_attribution"),
        (True, "shopify_handoff"),
    ]
    assert not Commission.objects.exists()


def test_each_path_s_event_is_one_outcome_row(confirm, deliver, shop):
    confirm()
    deliver()

    assert sorted(OutcomeEvent.objects.values_list("endpoint", "outcome")) == [
        ("order_confirmation", "shopify_handoff"),
        ("shopify", "no_attribution"),
    ]
