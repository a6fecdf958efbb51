"""POST /api/order_confirmation (docs/api.md; docs/decisions.md): the tracked answer and the 200 outcomes without a commission.

Every test checks the answer, what was stored (Order, Commission) and the one outcome record written.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.models import Commission, Order
from brands.hosts import hash_email
from tests.factories import (
    ClickFactory,
    DiscountCodeFactory,
    KnownShopperFactory,
)

from .confirming import (
    PAGE,
    UNREGISTERED_PAGE,
    answer,
    click_on,
    events,
    order,
)

pytestmark = pytest.mark.django_db


# --- tracked ------------------------------------------------------------------------------------------------


def test_it_tracks_an_order_with_a_fresh_click(confirm, prop, creator):
    click = click_on(prop, creator=creator)

    response = confirm(order(orderId="A-1001", orderAmount=59.90, clickId=click.click_id))

    answer(response, 200, "tracked")
    stored = Order.objects.get()
    assert (stored.order_id, stored.amount, stored.currency, stored.outcome) == (
        "A-1001",
        Decimal("59.90"),
        "USD",
        "tracked",
    )
    assert (stored.attribution, stored.click_id, stored.creator_id, stored.property_id) == (
        "click",
        click.id,
        creator.id,
        prop.id,
    )
    commission = Commission.objects.get()
    assert (commission.order_id, commission.creator_id, commission.state, commission.is_test) == (
        stored.id,
        creator.id,
        "pending",
        False,
    )
    assert (commission.amount, commission.rate_percent, commission.currency) == (
        Decimal("5.99"),
        Decimal("10"),
        "USD",
    )
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_it_tracks_an_order_with_a_registered_code_trimmed_and_in_any_case(confirm, prop, creator):
    code = DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")

    response = confirm(order(code="  ana10 "))

    answer(response, 200, "tracked")
    stored = Order.objects.get()
    assert (stored.attribution, stored.discount_code_id, stored.creator_id, stored.code_sent) == (
        "code",
        code.id,
        creator.id,
        "ana10",
    )
    assert Commission.objects.get().creator_id == creator.id
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_it_tracks_an_order_of_a_known_shopper_by_the_hash_of_their_email(confirm, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))

    response = confirm(order(customer_email="  Returning@Example.com "))

    answer(response, 200, "tracked")
    assert Order.objects.get().attribution == "shopper"
    assert Commission.objects.get().creator_id == creator.id
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


@pytest.mark.parametrize(
    ("how", "returning"), [("click", True), ("code", False), ("shopper", True), ("click", False)]
)
def test_the_commission_keeps_what_attributed_the_order_and_whether_the_shopper_returned(
    confirm, prop, creator, how, returning
):
    """The Creators page counts an order's path and shopper from its commission alone (docs/health.md)."""
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))
    signal = {
        "click": {"clickId": click_on(prop, creator=creator).click_id},
        "code": {"code": "ANA10"},
        "shopper": {"customer_email": "returning@example.com"},
    }[how]

    answer(confirm(order(is_returning_customer=returning, **signal)), 200, "tracked")

    stored = Order.objects.get()
    assert (stored.attribution, stored.is_returning_customer) == (how, returning)
    commission = Commission.objects.get()
    assert (commission.attribution, commission.is_returning_customer) == (how, returning)


# --- 200 outcomes without a commission ----------------------------------------------------------------------


def test_a_direct_order_is_recorded_as_no_attribution(confirm, prop):
    response = confirm(order())

    answer(response, 200, "no_attribution")
    stored = Order.objects.get()
    assert (stored.outcome, stored.attribution, stored.creator_id) == ("no_attribution", "none", None)
    assert not Commission.objects.exists()
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_an_unknown_shopper_email_is_no_attribution(confirm, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))

    answer(confirm(order(customer_email="someone.else@example.com")), 200, "no_attribution")
    assert not Commission.objects.exists()


def test_a_known_shopper_of_an_inactive_creator_is_no_attribution(confirm, prop, banned_creator):
    KnownShopperFactory(
        brand=prop.brand, creator=banned_creator, email_hash=hash_email("returning@example.com")
    )

    answer(confirm(order(customer_email="returning@example.com")), 200, "no_attribution")
    assert not Commission.objects.exists()


def test_a_brand_whose_storefront_integration_handles_orders_gets_shopify_handoff(confirm, prop, creator):
    prop.brand.storefront_handles_orders = True
    prop.brand.save()
    click = click_on(prop, creator=creator)

    response = confirm(order(clickId=click.click_id))

    answer(response, 200, "shopify_handoff")
    assert Order.objects.get().outcome == "shopify_handoff"
    assert not Commission.objects.exists()
    assert events() == [("shopify_handoff", 200, prop.brand_id, "A-1001", False)]


def test_a_blacklisted_code_is_not_tracked(confirm, prop):
    DiscountCodeFactory(brand=prop.brand, code="STAFF50", creator=None, is_blacklisted=True)

    response = confirm(order(code="staff50"))

    answer(response, 200, "blacklisted_code")
    assert Order.objects.get().outcome == "blacklisted_code"
    assert not Commission.objects.exists()
    assert events() == [("blacklisted_code", 200, prop.brand_id, "A-1001", False)]


def test_a_click_older_than_the_attribution_window_is_expired(confirm, prop, creator):
    click = click_on(prop, creator=creator, ago=timedelta(days=31))

    response = confirm(order(clickId=click.click_id))

    answer(response, 200, "expired_click")
    stored = Order.objects.get()
    assert (stored.outcome, stored.creator_id) == ("expired_click", None)
    assert not Commission.objects.exists()
    assert events() == [("expired_click", 200, prop.brand_id, "A-1001", False)]


@pytest.fixture
def frozen_now(monkeypatch):
    moment = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: moment)
    return moment


@pytest.mark.parametrize(
    "clicked_before, outcome",
    [
        (timedelta(days=30), "tracked"),
        (timedelta(days=30, seconds=1), "expired_click"),
    ],
)
def test_the_attribution_window_runs_from_the_click_to_the_receipt_of_the_event(
    confirm, prop, creator, frozen_now, clicked_before, outcome
):
    click = ClickFactory(property=prop, creator=creator, clicked_at=frozen_now - clicked_before)

    answer(confirm(order(clickId=click.click_id)), 200, outcome)
    assert Order.objects.get().received_at == frozen_now


def test_the_attribution_window_is_the_brands_own(confirm, prop, creator):
    prop.brand.attribution_window_days = 7
    prop.brand.save()
    click = click_on(prop, creator=creator, ago=timedelta(days=8))

    answer(confirm(order(clickId=click.click_id)), 200, "expired_click")
    assert not Commission.objects.exists()


def test_a_click_of_another_brand_is_cross_brand_click(confirm, prop, other_prop):
    click = click_on(other_prop)

    response = confirm(order(clickId=click.click_id))

    answer(response, 200, "cross_brand_click")
    assert Order.objects.get().outcome == "cross_brand_click"
    assert Order.objects.get().brand_id == prop.brand_id
    assert not Commission.objects.exists()
    assert events() == [("cross_brand_click", 200, prop.brand_id, "A-1001", False)]


def test_a_click_on_another_property_of_the_brand_is_property_mismatch(
    confirm, prop, secondary_prop, creator
):
    click = click_on(secondary_prop, creator=creator)

    response = confirm(order(clickId=click.click_id, page_url=PAGE))

    answer(response, 200, "property_mismatch")
    assert Order.objects.get().outcome == "property_mismatch"
    assert not Commission.objects.exists()
    assert events() == [("property_mismatch", 200, prop.brand_id, "A-1001", False)]


def test_a_host_under_the_brands_domain_that_is_not_a_property_is_unregistered_property(
    confirm, prop, creator
):
    click = click_on(prop, creator=creator)

    response = confirm(order(page_url=UNREGISTERED_PAGE, clickId=click.click_id))

    body = answer(response, 200, "unregistered_property")
    assert "outlet.acme.example" in body["message"]
    stored = Order.objects.get()
    assert (stored.outcome, stored.property_id, stored.page_host) == (
        "unregistered_property",
        None,
        "outlet.acme.example",
    )
    assert not Commission.objects.exists()
    assert events() == [("unregistered_property", 200, prop.brand_id, "A-1001", False)]


def test_a_click_of_an_inactive_creator_is_banned_user(confirm, prop, banned_creator):
    click = click_on(prop, creator=banned_creator)

    response = confirm(order(clickId=click.click_id))

    answer(response, 200, "banned_user")
    assert Order.objects.get().outcome == "banned_user"
    assert not Commission.objects.exists()
    assert events() == [("banned_user", 200, prop.brand_id, "A-1001", False)]


def test_a_code_of_an_inactive_creator_is_banned_user(confirm, prop, banned_creator):
    DiscountCodeFactory(brand=prop.brand, creator=banned_creator, code="BEN15")

    answer(confirm(order(code="BEN15")), 200, "banned_user")
    assert not Commission.objects.exists()
    assert events() == [("banned_user", 200, prop.brand_id, "A-1001", False)]


def test_a_code_no_creator_holds_is_unregistered_code_and_still_a_success(confirm, prop):
    response = confirm(order(code="NOBODY20"))

    body = answer(response, 200, "unregistered_code")
    assert "NOBODY20" in body["message"]
    assert "register" in body["message"].lower()
    assert Order.objects.get().outcome == "unregistered_code"
    assert not Commission.objects.exists()
    assert events() == [("unregistered_code", 200, prop.brand_id, "A-1001", False)]


def test_a_code_of_another_brand_is_unregistered_here(confirm, prop, other_brand):
    DiscountCodeFactory(brand=other_brand, code="GLOBEX10")

    answer(confirm(order(code="GLOBEX10")), 200, "unregistered_code")
    assert not Commission.objects.exists()
