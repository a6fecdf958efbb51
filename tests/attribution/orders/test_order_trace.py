"""Every order explains its decision (docs/api.md, "The decision's trace"): the signals the decision
consulted, in order, each with its result and a sentence of facts, stored with the order when it is decided
and shown by the read API. The brand is Acme (10 %, window 30 days) on shop.acme.example; Ana is its
active creator."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.models import Order
from attribution.orders.whatif import decide_again
from brands.hosts import hash_email
from tests.attribution.keyed import caller_of
from tests.factories import (
    ClickFactory,
    CreatorFactory,
    DiscountCodeFactory,
    KnownShopperFactory,
    PropertyFactory,
)

pytestmark = pytest.mark.django_db

PAGE = "https://shop.acme.example/thank-you"
EMAIL = "shopper@example.com"


def order(**fields):
    return {"orderId": "A-1", "orderAmount": 59.90, "currency": "USD", "page_url": PAGE, **fields}


@pytest.fixture
def trace_of(api, prop):
    """Send the order confirmation and return (outcome answered, trace stored as (signal, result) pairs, details)."""

    def send(**fields):
        outcome = api.post("/api/order_confirmation", order(**fields)).json()["outcome"]
        stored = Order.objects.get(order_id="A-1").trace
        return outcome, [(s["signal"], s["result"]) for s in stored], [s["detail"] for s in stored]

    return send


def click_on(prop, creator, ago=timedelta(hours=2)):
    return ClickFactory(property=prop, creator=creator, clicked_at=timezone.now() - ago)


# --- the click ------------------------------------------------------------------------------------


def test_a_fresh_click_attributes_and_says_who_and_how_long_before(trace_of, prop, creator):
    click = click_on(prop, creator, ago=timedelta(days=3, hours=1))

    outcome, steps, details = trace_of(clickId=click.click_id)

    assert outcome == "tracked"
    assert steps == [("click", "attributed")]
    assert details == [
        f"click {click.click_id} on Ana's link, 3 days before the order; the window is 30 days"
    ]


def test_an_expired_click_says_its_age_and_the_window_and_the_code_then_decides(trace_of, prop, creator):
    click = click_on(prop, creator, ago=timedelta(days=34))
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    outcome, steps, details = trace_of(clickId=click.click_id, code="ana10")

    assert outcome == "tracked"
    assert steps == [("click", "expired_click"), ("code", "attributed")]
    assert details == [
        f"click {click.click_id} was made 34 days before the order; the window is 30 days",
        "code ANA10 belongs to Ana",
    ]


def test_a_click_of_another_brand_is_named_without_naming_the_brand(trace_of, prop, other_prop):
    click = click_on(other_prop, CreatorFactory(brand=other_prop.brand, name="Zed"))

    outcome, steps, details = trace_of(clickId=click.click_id)

    assert outcome == "cross_brand_click"
    assert steps == [("click", "cross_brand_click")]
    assert "Globex" not in details[0] and "Zed" not in details[0]


def test_a_click_made_for_another_property_names_both_hosts(trace_of, prop, creator):
    click = click_on(PropertyFactory(brand=prop.brand, host="eu.acme.example"), creator)

    outcome, steps, details = trace_of(clickId=click.click_id)

    assert (outcome, steps) == ("property_mismatch", [("click", "property_mismatch")])
    assert details == [
        f"click {click.click_id} was made for eu.acme.example; the order came from shop.acme.example"
    ]


def test_a_click_of_an_inactive_creator_is_banned_user(trace_of, prop):
    click = click_on(prop, CreatorFactory(brand=prop.brand, name="Bea", is_active=False))

    outcome, steps, details = trace_of(clickId=click.click_id)

    assert (outcome, steps) == ("banned_user", [("click", "banned_user")])
    assert details == [f"click {click.click_id} is on the link of Bea, an inactive creator"]


def test_an_unknown_click_refuses_the_order_and_the_what_if_names_it(prop):
    unknown = "clk_" + "0" * 32

    decided = decide_again(json.dumps(order(clickId=unknown)), at=timezone.now())

    assert decided == (
        "click_not_found",
        [
            {
                "signal": "click",
                "result": "click_not_found",
                "detail": f"no click of any brand has the id {unknown}",
            }
        ],
    )


# --- the code -------------------------------------------------------------------------------------


def test_a_registered_code_attributes(trace_of, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    assert trace_of(code="ANA10") == ("tracked", [("code", "attributed")], ["code ANA10 belongs to Ana"])


def test_an_unregistered_code_says_so_with_the_code_as_sent(trace_of, prop):
    assert trace_of(code="NOPE5") == (
        "unregistered_code",
        [("code", "unregistered_code")],
        ["code NOPE5 is not registered for this brand"],
    )


def test_a_blacklisted_code(trace_of, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="LEAKED", creator=creator, is_blacklisted=True)

    assert trace_of(code="LEAKED") == (
        "blacklisted_code",
        [("code", "blacklisted_code")],
        ["code LEAKED is blacklisted: it credits no one"],
    )


def test_a_code_of_an_inactive_creator_is_banned_user(trace_of, prop):
    DiscountCodeFactory(
        brand=prop.brand, code="ANA10", creator=CreatorFactory(brand=prop.brand, is_active=False)
    )

    assert trace_of(code="ANA10") == (
        "banned_user",
        [("code", "banned_user")],
        ["code ANA10 belongs to an inactive creator"],
    )


# --- the known shopper ----------------------------------------------------------------------------


def test_a_known_shopper_attributes_without_naming_the_email(trace_of, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email(EMAIL))

    outcome, steps, details = trace_of(customer_email=EMAIL)

    assert (outcome, steps) == ("tracked", [("shopper", "attributed")])
    assert details == ["the shopper's email is known as a customer of Ana"]
    assert EMAIL not in str(details) and hash_email(EMAIL) not in str(details)


def test_an_unknown_shopper_is_not_known(trace_of, prop):
    assert trace_of(customer_email=EMAIL) == (
        "no_attribution",
        [("shopper", "not_known")],
        ["the shopper's email is not known for any active creator of the brand"],
    )


def test_every_signal_that_failed_is_listed_in_the_order_consulted(trace_of, prop, creator):
    click = click_on(prop, creator, ago=timedelta(days=40))

    outcome, steps, _ = trace_of(clickId=click.click_id, code="NOPE5", customer_email=EMAIL)

    assert outcome == "expired_click"
    assert steps == [("click", "expired_click"), ("code", "unregistered_code"), ("shopper", "not_known")]


def test_a_direct_order_has_an_empty_trace(trace_of, prop):
    assert trace_of() == ("no_attribution", [], [])


def test_a_signal_the_decision_did_not_need_is_not_consulted(trace_of, prop, creator):
    click = click_on(prop, creator)
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    assert trace_of(clickId=click.click_id, code="ANA10")[1] == [("click", "attributed")]


# --- the read API ---------------------------------------------------------------------------------


def test_the_read_api_shows_the_trace(api, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    api.post("/api/order_confirmation", order(code="ANA10"))
    key = caller_of(prop.brand, "dev").plaintext

    body = api.get("/api/Affiliates/orders/A-1", key=key).json()

    assert body["order"]["trace"] == [
        {"signal": "code", "result": "attributed", "detail": "code ANA10 belongs to Ana"}
    ]


def test_the_trace_is_the_decision_as_taken_not_as_it_would_be_today(api, prop, creator):
    code = DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    api.post("/api/order_confirmation", order(code="ANA10"))
    code.is_blacklisted = True
    code.save()

    assert Order.objects.get().trace[0]["result"] == "attributed"
    assert decide_again(json.dumps(order(code="ANA10")), at=timezone.now())[0] == "blacklisted_code"
