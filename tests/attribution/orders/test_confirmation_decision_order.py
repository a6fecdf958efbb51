"""POST /api/order_confirmation (docs/decisions.md): the decision order (the first matching step decides), returnWindowClosesAt, test events and commission amounts.

Every test checks the answer, what was stored (Order, Commission) and the one outcome record written.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from attribution.models import Commission, Order
from brands.hosts import hash_email
from health.log.models import OutcomeEvent
from tests.factories import (
    CreatorFactory,
    DiscountCodeFactory,
    KnownShopperFactory,
)

from .confirming import (
    UNKNOWN_CLICK,
    UNREGISTERED_PAGE,
    answer,
    click_on,
    events,
    order,
)

pytestmark = pytest.mark.django_db


# --- the decision order: the first matching step decides ----------------------------------------------------


def stored_orders() -> list[tuple]:
    """(order id, outcome, attribution, creator paid by its commission or None), oldest first."""
    return [
        (o.order_id, o.outcome, o.attribution, getattr(getattr(o, "commission", None), "creator_id", None))
        for o in Order.objects.select_related("commission").order_by("id")
    ]


def test_a_bad_order_id_is_reported_before_a_bad_amount(confirm, prop):
    answer(confirm(order(orderId=None, orderAmount="$59.90")), 400, "invalid_order_id")
    assert stored_orders() == []
    assert events() == [("invalid_order_id", 400, prop.brand_id, "", False)]


def test_a_bad_amount_is_reported_before_a_bad_currency(confirm, prop):
    answer(confirm(order(orderAmount="59,90", currency="ABC")), 400, "invalid_order_amount")
    assert stored_orders() == []
    assert events() == [("invalid_order_amount", 400, prop.brand_id, "A-1001", False)]


def test_a_bad_currency_is_reported_before_a_malformed_click_id(confirm, prop):
    answer(confirm(order(currency="ABC", clickId="undefined")), 400, "invalid_params")
    assert stored_orders() == []
    assert events() == [("invalid_params", 400, prop.brand_id, "A-1001", False)]


def test_a_malformed_click_id_is_reported_before_an_unresolved_domain(confirm, db):
    answer(confirm(order(clickId="undefined", page_url="https://nobody.example/")), 400, "malformed_click_id")
    assert stored_orders() == []
    assert events() == [("malformed_click_id", 400, None, "A-1001", False)]


def test_an_unresolved_domain_is_reported_before_an_unknown_click(confirm, db):
    answer(
        confirm(order(clickId=UNKNOWN_CLICK, page_url="https://nobody.example/")), 400, "unresolved_domain"
    )
    assert stored_orders() == []
    assert events() == [("unresolved_domain", 400, None, "A-1001", False)]


def test_a_duplicate_is_reported_before_an_unknown_click(confirm, prop):
    answer(confirm(order()), 200, "no_attribution")

    answer(confirm(order(clickId=UNKNOWN_CLICK)), 400, "duplicate_order")
    assert stored_orders() == [("A-1001", "no_attribution", "none", None)]
    assert events()[-1] == ("duplicate_order", 400, prop.brand_id, "A-1001", False)


def test_a_duplicate_is_reported_before_an_unregistered_property(confirm, prop):
    answer(confirm(order(page_url=UNREGISTERED_PAGE)), 200, "unregistered_property")

    answer(confirm(order(page_url=UNREGISTERED_PAGE)), 400, "duplicate_order")
    assert stored_orders() == [("A-1001", "unregistered_property", "none", None)]
    assert events()[-1] == ("duplicate_order", 400, prop.brand_id, "A-1001", False)


def test_an_unregistered_property_is_reported_before_the_storefront_handoff(confirm, prop):
    prop.brand.storefront_handles_orders = True
    prop.brand.save()

    answer(confirm(order(page_url=UNREGISTERED_PAGE)), 200, "unregistered_property")
    assert stored_orders() == [("A-1001", "unregistered_property", "none", None)]
    assert events() == [("unregistered_property", 200, prop.brand_id, "A-1001", False)]


def test_the_storefront_handoff_comes_before_looking_at_the_click(confirm, prop):
    prop.brand.storefront_handles_orders = True
    prop.brand.save()

    answer(confirm(order(clickId=UNKNOWN_CLICK)), 200, "shopify_handoff")
    assert stored_orders() == [("A-1001", "shopify_handoff", "none", None)]
    assert events() == [("shopify_handoff", 200, prop.brand_id, "A-1001", False)]


def test_an_unknown_click_is_click_not_found_even_with_a_registered_code(confirm, prop, creator):
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")

    answer(confirm(order(clickId=UNKNOWN_CLICK, code="ANA10")), 400, "click_not_found")
    assert stored_orders() == []
    assert events() == [("click_not_found", 400, prop.brand_id, "A-1001", False)]


def test_an_expired_click_with_a_registered_code_is_tracked_by_the_code(confirm, prop, creator):
    click = click_on(prop, ago=timedelta(days=45))
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")

    answer(confirm(order(clickId=click.click_id, code="ANA10")), 200, "tracked")
    assert stored_orders() == [("A-1001", "tracked", "code", creator.id)]
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_an_expired_click_of_a_known_shopper_is_tracked_by_the_shopper(confirm, prop, creator):
    click = click_on(prop, ago=timedelta(days=45))
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))

    answer(confirm(order(clickId=click.click_id, customer_email="returning@example.com")), 200, "tracked")
    assert stored_orders() == [("A-1001", "tracked", "shopper", creator.id)]
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_cross_brand_click_with_a_registered_code_is_tracked_by_the_code(
    confirm, prop, other_prop, creator
):
    click = click_on(other_prop)
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")

    answer(confirm(order(clickId=click.click_id, code="ANA10")), 200, "tracked")
    assert stored_orders() == [("A-1001", "tracked", "code", creator.id)]
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_cross_brand_click_with_a_blacklisted_code_stays_cross_brand_click(confirm, prop, other_prop):
    click = click_on(other_prop)
    DiscountCodeFactory(brand=prop.brand, code="STAFF50", creator=None, is_blacklisted=True)

    answer(confirm(order(clickId=click.click_id, code="STAFF50")), 200, "cross_brand_click")
    assert stored_orders() == [("A-1001", "cross_brand_click", "none", None)]
    assert events() == [("cross_brand_click", 200, prop.brand_id, "A-1001", False)]


def test_a_property_mismatch_with_an_unregistered_code_stays_property_mismatch(
    confirm, prop, secondary_prop, creator
):
    click = click_on(secondary_prop, creator=creator)

    answer(confirm(order(clickId=click.click_id, code="NOBODY20")), 200, "property_mismatch")
    assert stored_orders() == [("A-1001", "property_mismatch", "none", None)]
    assert events() == [("property_mismatch", 200, prop.brand_id, "A-1001", False)]


def test_a_click_of_an_inactive_creator_is_banned_user_even_with_a_registered_code(
    confirm, prop, creator, banned_creator
):
    click = click_on(prop, creator=banned_creator)
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")

    answer(confirm(order(clickId=click.click_id, code="ANA10")), 200, "banned_user")
    assert stored_orders() == [("A-1001", "banned_user", "click", None)]
    assert events() == [("banned_user", 200, prop.brand_id, "A-1001", False)]


def test_a_fresh_click_wins_over_a_blacklisted_code(confirm, prop, creator):
    click = click_on(prop, creator=creator)
    DiscountCodeFactory(brand=prop.brand, code="STAFF50", creator=None, is_blacklisted=True)

    answer(confirm(order(clickId=click.click_id, code="STAFF50")), 200, "tracked")
    assert stored_orders() == [("A-1001", "tracked", "click", creator.id)]
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_fresh_click_wins_over_another_creators_code(confirm, prop, creator):
    click = click_on(prop, creator=creator)
    DiscountCodeFactory(brand=prop.brand, code="OTHER10", creator=CreatorFactory(brand=prop.brand))

    answer(confirm(order(clickId=click.click_id, code="OTHER10")), 200, "tracked")
    assert stored_orders() == [("A-1001", "tracked", "click", creator.id)]
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_given_code_decides_before_the_known_shopper(confirm, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))
    DiscountCodeFactory(brand=prop.brand, code="STAFF50", creator=None, is_blacklisted=True)

    answer(confirm(order(code="STAFF50", customer_email="returning@example.com")), 200, "blacklisted_code")
    answer(
        confirm(order(orderId="A-1002", code="NOBODY20", customer_email="returning@example.com")),
        200,
        "unregistered_code",
    )
    assert stored_orders() == [
        ("A-1001", "blacklisted_code", "none", None),
        ("A-1002", "unregistered_code", "none", None),
    ]
    assert [e[:4] for e in events()] == [
        ("blacklisted_code", 200, prop.brand_id, "A-1001"),
        ("unregistered_code", 200, prop.brand_id, "A-1002"),
    ]


# --- returnWindowClosesAt -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sent",
    [
        "2026-12-24T00:00:00Z",
        "2026-12-24T01:00:00+01:00",
        "2026-12-24T00:00:00",
        1798070400,
        1798070400000,
        "1798070400",
    ],
)
def test_the_return_window_is_read_from_iso_8601_or_epoch_seconds_or_milliseconds(confirm, prop, sent):
    answer(confirm(order(returnWindowClosesAt=sent)), 200, "no_attribution")
    assert Order.objects.get().return_window_closes_at == datetime(2026, 12, 24, tzinfo=UTC)
    assert OutcomeEvent.objects.get().warnings == []


@pytest.mark.parametrize("sent", ["next tuesday", "24/12/2026", True, {"date": "2026-12-24"}, "1e999"])
def test_an_unreadable_return_window_keeps_the_order_with_a_warning(confirm, prop, creator, sent):
    click = click_on(prop, creator=creator)

    answer(confirm(order(clickId=click.click_id, returnWindowClosesAt=sent)), 200, "tracked")
    assert Order.objects.get().return_window_closes_at is None
    assert Commission.objects.exists()
    [warning] = OutcomeEvent.objects.get().warnings
    assert "returnWindowClosesAt" in warning
    assert OutcomeEvent.objects.get().has_warnings is True


def test_the_answer_says_so_when_the_event_carries_a_warning(confirm, prop, creator):
    click = click_on(prop, creator=creator)

    body = answer(confirm(order(clickId=click.click_id, returnWindowClosesAt="next tuesday")), 200, "tracked")

    [warning] = OutcomeEvent.objects.get().warnings
    assert body["message"] == f"Order attributed; a commission was created. Warning: {warning}"
    assert OutcomeEvent.objects.get().response_body["message"] == body["message"]


# --- test events (docs/decisions.md, "Test events") ---------------------------------------------------------


def test_a_test_order_is_tracked_with_a_test_commission(confirm, prop, creator):
    click = click_on(prop, creator=creator)

    answer(confirm(order(test=True, clickId=click.click_id)), 200, "tracked")
    assert Order.objects.get().is_test is True
    assert Commission.objects.get().is_test is True
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", True)]


def test_test_and_live_order_ids_are_separate_namespaces(confirm, prop):
    answer(confirm(order(test=True)), 200, "no_attribution")
    answer(confirm(order(test=False)), 200, "no_attribution")
    answer(confirm(order(test="true")), 400, "duplicate_order")

    assert sorted(Order.objects.values_list("order_id", "is_test")) == [("A-1001", False), ("A-1001", True)]
    assert [(e[0], e[4]) for e in events()] == [
        ("no_attribution", True),
        ("no_attribution", False),
        ("duplicate_order", True),
    ]


def test_a_rejected_test_event_is_recorded_as_a_test(confirm, prop):
    answer(confirm(order(test=True, orderAmount="$59.90")), 400, "invalid_order_amount")
    assert events() == [("invalid_order_amount", 400, prop.brand_id, "A-1001", True)]


# --- commission amounts (docs/decisions.md, "Commission amount") --------------------------------------------


@pytest.mark.parametrize(
    "currency, amount, commission",
    [
        ("JPY", "25", Decimal("3")),  # 2.5 rounds half-up to 3 (half-even would give 2)
        ("JPY", "1999", Decimal("200")),
        ("USD", "1.25", Decimal("0.13")),  # 0.125 -> 0.13
        ("USD", "59.90", Decimal("5.99")),
        ("KWD", "1.245", Decimal("0.125")),  # 0.1245 -> 0.125
        ("KWD", "12.3456", Decimal("1.235")),
    ],
)
def test_a_commission_is_rounded_half_up_to_the_currencys_minor_units(
    confirm, prop, creator, currency, amount, commission
):
    click = click_on(prop, creator=creator)

    answer(confirm(order(orderAmount=amount, currency=currency, clickId=click.click_id)), 200, "tracked")
    stored = Commission.objects.get()
    assert (stored.amount, stored.currency, stored.order_amount) == (commission, currency, Decimal(amount))


def test_a_returning_customer_earns_the_brands_returning_rate(confirm, prop, creator):
    prop.brand.returning_commission_rate_percent = Decimal("5")
    prop.brand.save()
    click = click_on(prop, creator=creator)

    answer(
        confirm(order(orderAmount="59.90", is_returning_customer=True, clickId=click.click_id)),
        200,
        "tracked",
    )
    commission = Commission.objects.get()
    assert (commission.rate_percent, commission.amount) == (Decimal("5"), Decimal("3.00"))  # 2.995 -> 3.00
    assert Order.objects.get().is_returning_customer is True


def test_a_returning_customer_earns_the_normal_rate_when_the_brand_has_no_returning_rate(
    confirm, prop, creator
):
    click = click_on(prop, creator=creator)

    answer(
        confirm(order(orderAmount="59.90", is_returning_customer="true", clickId=click.click_id)),
        200,
        "tracked",
    )
    assert Commission.objects.get().rate_percent == Decimal("10")
