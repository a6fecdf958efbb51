"""POST /api/order_confirmation (docs/api.md; docs/decisions.md).

Every test checks the answer, what was stored (Order, Commission) and the one outcome record
written. The brand is Acme (10 %) with the property shop.acme.example; Ana is its active creator.
"""

import io
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from attribution.models import Click, Commission, Order
from brands.hosts import hash_email
from brands.resolution import resolve_host
from health.log.models import OutcomeEvent
from tests.factories import (
    ClickFactory,
    CreatorFactory,
    DiscountCodeFactory,
    KnownShopperFactory,
    PropertyFactory,
)
from tests.faults import failing_writes_to

pytestmark = pytest.mark.django_db

URL = "/api/order_confirmation"
PAGE = "https://shop.acme.example/checkout/thank-you"
SECONDARY_PAGE = "https://eu.acme.example/thank-you"
UNREGISTERED_PAGE = "https://outlet.acme.example/thank-you"
OTHER_BRAND_PAGE = "https://globex.example/thank-you"
UNKNOWN_CLICK = "clk_00000000000000000000000000000000"
ABSENT = object()


def order(**fields):
    """A valid live order of 59.90 USD from shop.acme.example; a field set to ABSENT is left out."""
    body = {"orderId": "A-1001", "orderAmount": 59.90, "currency": "USD", "page_url": PAGE}
    for name, value in fields.items():
        if value is ABSENT:
            body.pop(name, None)
        else:
            body[name] = value
    return body


def with_raw_amount(token: str) -> str:
    """The valid order as JSON text with orderAmount written as `token`, which json.dumps cannot write."""
    return json.dumps(order(orderAmount="<amount>")).replace('"<amount>"', token)


@pytest.fixture
def confirm(api):
    def post(body, **extra):
        return api.post(URL, body, **extra)

    return post


def answer(response, status: int, outcome: str) -> dict:
    """The response envelope: JSON, success follows the status, a non-empty message or error."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["outcome"] == outcome
    assert body["success"] is (status < 400)
    text = body["message" if status < 400 else "error"]
    assert isinstance(text, str) and text
    return body


def events() -> list[tuple]:
    """The outcome records written, oldest first: (outcome, http_status, brand id, order id, is_test)."""
    return list(
        OutcomeEvent.objects.filter(endpoint="order_confirmation")
        .order_by("id")
        .values_list("outcome", "http_status", "brand_id", "order_id", "is_test")
    )


def click_on(prop, *, creator=None, ago=timedelta(hours=1)) -> Click:
    return ClickFactory(
        property=prop,
        creator=creator or CreatorFactory(brand=prop.brand),
        clicked_at=timezone.now() - ago,
    )


@pytest.fixture
def secondary_prop(brand):
    return PropertyFactory(brand=brand, host="eu.acme.example")


@pytest.fixture
def banned_creator(brand):
    return CreatorFactory(brand=brand, name="Ben", is_active=False)


@pytest.fixture
def spool_dir(settings, tmp_path):
    """Service-side faults keep the event in the spool; keep it out of the repository."""
    settings.SPOOL_DIR = tmp_path / "spool"
    return settings.SPOOL_DIR


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


# --- 400 outcomes -------------------------------------------------------------------------------------------


def test_a_repeated_order_id_is_duplicate_order_and_the_first_event_counts(confirm, prop, creator):
    click = click_on(prop, creator=creator)
    answer(confirm(order(orderAmount=59.90, clickId=click.click_id)), 200, "tracked")

    response = confirm(order(orderAmount=99.00, clickId=click.click_id))

    body = answer(response, 400, "duplicate_order")
    assert "A-1001" in body["error"]
    assert Order.objects.get().amount == Decimal("59.90")
    assert Commission.objects.get().amount == Decimal("5.99")
    assert events() == [
        ("tracked", 200, prop.brand_id, "A-1001", False),
        ("duplicate_order", 400, prop.brand_id, "A-1001", False),
    ]


def test_a_repeat_of_an_order_that_had_no_attribution_is_also_a_duplicate(confirm, prop):
    answer(confirm(order()), 200, "no_attribution")

    answer(confirm(order()), 400, "duplicate_order")
    assert Order.objects.count() == 1


def test_an_integer_order_id_and_the_same_digits_as_a_string_are_one_order(confirm, prop):
    answer(confirm(order(orderId=123)), 200, "no_attribution")

    answer(confirm(order(orderId="123")), 400, "duplicate_order")
    assert list(Order.objects.values_list("order_id", flat=True)) == ["123"]
    assert [e[3] for e in events()] == ["123", "123"]


def test_the_same_order_id_at_another_brand_is_not_a_duplicate(confirm, prop, other_prop):
    answer(confirm(order(orderId="A-1001", page_url=PAGE)), 200, "no_attribution")

    answer(confirm(order(orderId="A-1001", page_url=OTHER_BRAND_PAGE)), 200, "no_attribution")
    assert sorted(Order.objects.values_list("brand_id", flat=True)) == sorted(
        [prop.brand_id, other_prop.brand_id]
    )


def test_an_unknown_click_id_is_click_not_found_and_stores_nothing(confirm, prop):
    response = confirm(order(clickId=UNKNOWN_CLICK))

    body = answer(response, 400, "click_not_found")
    assert "sms_click_id" in body["error"]
    assert not Order.objects.exists()
    assert events() == [("click_not_found", 400, prop.brand_id, "A-1001", False)]


@pytest.mark.parametrize(
    "amount",
    [
        "$59.90",
        "59.90 USD",
        "1,000.00",
        "59,90",
        "***THE ORDER TOTAL***",
        "{{ order.total }}",
        "<b>59.90</b>",
        "1e3",
        "NaN",
        "Infinity",
        "-Infinity",
        True,
        False,
        0,
        "0.00",
        -5,
        "-59.90",
        "",
        None,
        ABSENT,
        [59.90],
        {"value": 59.90},
    ],
)
def test_it_rejects_an_unusable_order_amount(confirm, prop, amount):
    response = confirm(order(orderAmount=amount))

    body = answer(response, 400, "invalid_order_amount")
    assert "orderAmount" in body["error"]
    assert not Order.objects.exists()
    assert events() == [("invalid_order_amount", 400, prop.brand_id, "A-1001", False)]


def test_it_rejects_an_amount_that_rounds_up_to_a_trillion_instead_of_failing_to_store_it(confirm, prop):
    response = confirm(with_raw_amount('"999999999999.9999995"'))

    body = answer(response, 400, "invalid_order_amount")
    assert body["error"].startswith("orderAmount is out of range")
    assert not Order.objects.exists()
    assert events() == [("invalid_order_amount", 400, prop.brand_id, "A-1001", False)]


def test_it_rejects_amount_with_currency_symbol(confirm, prop):
    body = answer(confirm(order(orderAmount="$59.90")), 400, "invalid_order_amount")
    assert "currency symbols" in body["error"]


def test_it_rejects_the_template_placeholder_left_in_place_of_the_total(confirm, prop):
    body = answer(confirm(order(orderAmount="***THE ORDER TOTAL***")), 400, "invalid_order_amount")
    assert "59.90" in body["error"]  # the fix names the expected shape


def test_a_missing_order_amount_is_said_to_be_missing(confirm, prop):
    body = answer(confirm(order(orderAmount=ABSENT)), 400, "invalid_order_amount")
    assert "orderAmount is missing" in body["error"]


def test_bare_nan_is_not_json_so_the_body_is_invalid_params(confirm, prop):
    raw = with_raw_amount("NaN")

    answer(confirm(raw), 400, "invalid_params")
    assert not Order.objects.exists()
    assert [e[:2] for e in events()] == [("invalid_params", 400)]


@pytest.mark.parametrize(
    "amount, stored",
    [
        ("59.90", Decimal("59.90")),
        (" 59.90 ", Decimal("59.90")),
        (60, Decimal("60")),
        (0.01, Decimal("0.01")),
    ],
)
def test_it_accepts_a_number_or_a_plain_decimal_string_as_amount(confirm, prop, amount, stored):
    answer(confirm(order(orderAmount=amount)), 200, "no_attribution")
    assert Order.objects.get().amount == stored


@pytest.mark.parametrize(
    "token, stored",
    [
        ("0.30000000000000004", Decimal("0.300000")),  # 0.1 * 3 in a browser
        ("59.900000000000006", Decimal("59.900000")),
        ('"59.9000005"', Decimal("59.900001")),  # half-up
    ],
)
def test_float_noise_past_six_decimals_is_rounded_not_refused(confirm, prop, creator, token, stored):
    click = click_on(prop, creator=creator)
    raw = json.dumps(order(clickId=click.click_id, orderAmount="<amount>")).replace('"<amount>"', token)

    answer(confirm(raw), 200, "tracked")
    assert Order.objects.get().amount == stored


def test_an_amount_that_rounds_to_zero_is_not_greater_than_zero(confirm, prop):
    body = answer(confirm(with_raw_amount("0.0000001")), 400, "invalid_order_amount")
    assert "greater than 0" in body["error"]


def test_a_json_integer_too_long_for_python_is_judged_by_its_field(confirm, prop):
    # Python's int() refuses more than 4,300 digits; the body is still JSON and its brand is known.
    answer(confirm(with_raw_amount("1" + "0" * 5000)), 400, "invalid_order_amount")
    raw = json.dumps(order(orderId="<id>")).replace('"<id>"', "9" * 5000)
    body = answer(confirm(raw), 400, "invalid_order_id")
    assert "at most 255 digits" in body["error"]
    assert [e[:3] for e in events()] == [
        ("invalid_order_amount", 400, prop.brand_id),
        ("invalid_order_id", 400, prop.brand_id),
    ]


def test_a_json_number_with_an_exponent_is_a_number(confirm, prop):
    raw = with_raw_amount("1e3")

    answer(confirm(raw), 200, "no_attribution")
    assert Order.objects.get().amount == Decimal("1000")


@pytest.mark.parametrize(
    "order_id",
    [12.5, True, False, None, ABSENT, {"id": "A-1001"}, ["A-1001"], "", "   ", "x" * 256],
)
def test_it_rejects_an_unusable_order_id(confirm, prop, order_id):
    response = confirm(order(orderId=order_id))

    body = answer(response, 400, "invalid_order_id")
    assert "orderId" in body["error"]
    assert not Order.objects.exists()
    [(outcome, status, brand_id, logged_id, is_test)] = events()
    assert (outcome, status, brand_id, is_test) == ("invalid_order_id", 400, prop.brand_id, False)
    assert logged_id == (order_id if order_id == "x" * 256 else "")[:255]


def test_an_order_id_is_trimmed_and_may_be_255_characters(confirm, prop):
    answer(confirm(order(orderId="  A-1001  ")), 200, "no_attribution")
    answer(confirm(order(orderId="x" * 255)), 200, "no_attribution")
    assert sorted(Order.objects.values_list("order_id", flat=True)) == ["A-1001", "x" * 255]


@pytest.mark.parametrize(
    "click_id",
    [
        '"clk_0123456789abcdef0123456789abcdef"',
        "clk%5F0123456789abcdef0123456789abcdef",
        "sms_click_id=clk_0123456789abcdef0123456789abcdef",
        "undefined",
        "null",
        "clk_0123456789ABCDEF0123456789ABCDEF",
        12345,
        True,
        {"id": "clk_0123456789abcdef0123456789abcdef"},
    ],
)
def test_it_rejects_a_click_id_that_is_not_the_cookie_value_as_stored(confirm, prop, click_id):
    response = confirm(order(clickId=click_id))

    body = answer(response, 400, "malformed_click_id")
    assert "exactly as stored" in body["error"]
    assert not Order.objects.exists()
    assert events() == [("malformed_click_id", 400, prop.brand_id, "A-1001", False)]


@pytest.mark.parametrize("click_id", [None, "", "   ", ABSENT])
def test_a_null_or_empty_click_id_means_no_click_was_given(confirm, prop, click_id):
    answer(confirm(order(clickId=click_id)), 200, "no_attribution")
    assert Order.objects.get().click_id is None


@pytest.mark.parametrize("code", ["", "   ", None])
def test_an_empty_code_means_no_code_was_given(confirm, prop, code):
    answer(confirm(order(code=code)), 200, "no_attribution")
    assert Order.objects.get().code_sent == ""


@pytest.mark.parametrize(
    "page_url, error",
    [
        ("https://unknown-shop.example/thank-you", "No registered brand matches unknown-shop.example."),
        ("not a url", "page_url could not be read as a web address."),
        (42, "page_url could not be read as a web address."),
        ("", "page_url is missing."),
        (None, "page_url is missing."),
        (ABSENT, "page_url is missing."),
    ],
)
def test_an_event_whose_domain_matches_no_brand_is_unresolved_domain(confirm, prop, page_url, error):
    response = confirm(order(page_url=page_url))

    body = answer(response, 400, "unresolved_domain")
    assert body["error"].startswith(error)
    assert "Fix:" in body["error"]
    assert not Order.objects.exists()
    assert events() == [("unresolved_domain", 400, None, "A-1001", False)]


@pytest.mark.parametrize("domain", [None, "", "   "])
def test_a_domain_that_is_null_or_blank_is_not_given_and_page_url_decides(confirm, prop, domain):
    answer(confirm(order(domain=domain)), 200, "no_attribution")


def test_a_domain_of_another_type_is_given_and_unreadable(confirm, prop):
    body = answer(confirm(order(domain=["shop.acme.example"])), 400, "unresolved_domain")
    assert body["error"].startswith("domain could not be read")


def test_an_inactive_brand_resolves_to_no_brand(confirm, prop):
    prop.brand.is_active = False
    prop.brand.save()

    answer(confirm(order()), 400, "unresolved_domain")
    assert not Order.objects.exists()


def test_the_domain_field_wins_over_page_url(confirm, prop, other_prop):
    response = confirm(order(page_url="https://checkout.payments.example/thanks", domain="shop.acme.example"))

    answer(response, 200, "no_attribution")
    assert Order.objects.get().property_id == prop.id
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_hosts_are_compared_without_case_port_trailing_dot_or_www(confirm, prop):
    answer(confirm(order(page_url="HTTPS://WWW.Shop.Acme.Example.:443/thanks")), 200, "no_attribution")
    assert Order.objects.get().property_id == prop.id


@pytest.mark.parametrize("currency", ["ABC", "US", "$", "dollar", 840, None, ABSENT, ""])
def test_a_missing_or_unknown_currency_is_invalid_params(confirm, prop, currency):
    response = confirm(order(currency=currency))

    body = answer(response, 400, "invalid_params")
    assert "currency" in body["error"]
    assert not Order.objects.exists()
    assert events() == [("invalid_params", 400, prop.brand_id, "A-1001", False)]


def test_a_lower_case_currency_is_accepted_and_stored_upper_case(confirm, prop, creator):
    click = click_on(prop, creator=creator)

    answer(confirm(order(currency="eur", clickId=click.click_id)), 200, "tracked")
    assert Order.objects.get().currency == "EUR"
    assert Commission.objects.get().currency == "EUR"


@pytest.mark.parametrize(
    "raw",
    [
        "[]",
        '["A-1001", 59.90]',
        '"A-1001"',
        "59.90",
        "null",
        "{not json",
        '{"orderId": "A-1001", "orderId": "A-1002"}',
        "",
    ],
)
def test_a_body_that_is_not_a_json_object_is_invalid_params(confirm, db, raw):
    response = confirm(raw)

    answer(response, 400, "invalid_params")
    assert not Order.objects.exists()
    assert [e[:3] for e in events()] == [("invalid_params", 400, None)]


@pytest.mark.parametrize(
    "field, value",
    [
        ("test", "yes"),
        ("test", 1),
        ("is_returning_customer", "1"),
        ("is_returning_customer", 1),
        ("code", {"code": "ANA10"}),
        ("code", True),
        ("customer_email", ["returning@example.com"]),
        ("customer_email", 5),
        ("customer_email", True),
    ],
)
def test_optional_fields_of_the_wrong_type_are_invalid_params(confirm, prop, field, value):
    response = confirm(order(**{field: value}))

    body = answer(response, 400, "invalid_params")
    assert body["error"].startswith(field)
    assert not Order.objects.exists()
    assert [e[:4] for e in events()] == [("invalid_params", 400, prop.brand_id, "A-1001")]


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


# --- a 400 does not consume the order id --------------------------------------------------------------------


def test_a_fixed_and_resent_order_is_tracked_after_a_400(confirm, prop, creator):
    click = click_on(prop, creator=creator)
    answer(confirm(order(orderAmount="$59.90", clickId=click.click_id)), 400, "invalid_order_amount")

    answer(confirm(order(orderAmount="59.90", clickId=click.click_id)), 200, "tracked")
    assert Commission.objects.get().amount == Decimal("5.99")


def test_an_order_sent_with_an_unknown_click_can_be_resent_without_it(confirm, prop):
    answer(confirm(order(clickId=UNKNOWN_CLICK)), 400, "click_not_found")

    answer(confirm(order()), 200, "no_attribution")


# --- the brand sees its own rejected events (docs/decisions.md, "Decision order of an order confirmation") ---------------------------


@pytest.mark.parametrize(
    "body, outcome",
    [
        (order(orderId=None), "invalid_order_id"),
        (order(orderAmount="59,90"), "invalid_order_amount"),
        (order(currency="ABC"), "invalid_params"),
        (order(clickId="undefined"), "malformed_click_id"),
        (order(clickId=UNKNOWN_CLICK), "click_not_found"),
        (order(orderAmount="59,90", page_url=UNREGISTERED_PAGE), "invalid_order_amount"),
        (
            order(
                orderAmount="59,90", page_url="https://checkout.payments.example/", domain="shop.acme.example"
            ),
            "invalid_order_amount",
        ),
    ],
)
def test_a_rejected_event_is_recorded_for_the_brand_its_page_url_resolves_to(confirm, prop, body, outcome):
    answer(confirm(body), 400, outcome)
    [event] = OutcomeEvent.objects.all()
    assert (event.outcome, event.brand_id) == (outcome, prop.brand_id)


# --- what an unauthenticated caller may learn (docs/decisions.md, "Response envelope") ----------------------


def test_a_tracked_answer_names_no_creator_and_no_commission_amount(confirm, prop):
    creator = CreatorFactory(brand=prop.brand, name="Zelda Creatorname")
    click = click_on(prop, creator=creator)

    response = confirm(order(orderAmount="123.45", clickId=click.click_id))

    body = answer(response, 200, "tracked")
    assert set(body) == {"success", "outcome", "message"}
    text = response.content.decode()
    assert "Zelda" not in text
    assert "12.35" not in text and "12.3" not in text
    assert str(creator.id) not in body["message"]


def test_a_cross_brand_answer_reveals_nothing_of_the_other_brand(confirm, prop, other_prop):
    other_creator = CreatorFactory(brand=other_prop.brand, name="Olga Othercreator")
    click = click_on(other_prop, creator=other_creator)

    response = confirm(order(clickId=click.click_id))

    body = answer(response, 200, "cross_brand_click")
    assert set(body) == {"success", "outcome", "message"}
    text = response.content.decode()
    assert "Globex" not in text and "globex" not in text
    assert "Olga" not in text


def test_the_shoppers_email_is_stored_only_as_a_hash(confirm, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))

    answer(confirm(order(customer_email="Returning@Example.com")), 200, "tracked")

    event = OutcomeEvent.objects.get()
    assert json.loads(event.request_body)["customer_email"] == "sha256:" + hash_email("returning@example.com")
    stored = [*Order.objects.values().get().values(), *OutcomeEvent.objects.values().get().values()]
    assert not any("returning@example.com" in str(value).lower() for value in stored)


def test_an_email_in_a_body_that_failed_to_parse_is_redacted(confirm, db):
    answer(confirm('{"orderId": "A-1001", "customer_email": "returning@example.com",'), 400, "invalid_params")

    assert "returning@example.com" not in str(OutcomeEvent.objects.values().get())


@pytest.mark.parametrize(
    "raw",
    [
        '[{"customer_email": "shopper@example.com"}]',  # not an object: invalid_params
        '"shopper@example.com"',
        '{"orderId": "A-1", "customer": {"email": "shopper@example.com"}, "page_url": "' + PAGE + '"}',
        '{"orderId": "A-1", "notes": ["shopper\\u0040example.com"], "page_url": "' + PAGE + '"}',
        '{"orderId": "A-1", "page_url": "' + PAGE + '?email=shopper%40example.com"}',
        '{"orderId": "A-1", "customer_email": "shopper\\u0040example.com",',  # not JSON: a preview
        '{"orderId": "A-1", "x": "\\"shopper lopez\\"@example.com",',
        "{'customer_email': 'shopper@example.com'}",
        "customer_email=shopper%40example.com&orderId=A-1",
    ],
)
def test_no_shoppers_address_is_stored_whatever_the_shape_of_the_body(confirm, prop, raw):
    confirm(raw)

    stored = json.dumps(list(OutcomeEvent.objects.values()), default=str).lower()
    assert "shopper" not in stored


# --- browser callers (browser callers, paths) ---------------------------------------------------------------


def test_it_answers_cors_preflight_from_any_origin_without_credentials(client, db):
    response = client.options(
        URL,
        HTTP_ORIGIN="https://any-brand-shop.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type,x-request-id",
    )

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Allow-Methods"] == "POST, OPTIONS"
    assert response["Access-Control-Allow-Headers"].lower() == "content-type, x-request-id"
    assert "Access-Control-Allow-Credentials" not in response
    assert (
        not OutcomeEvent.objects.exists()
    )  # a preflight is not an event (docs/decisions.md, "Outcome codes beyond the interface's lists")


def test_a_cross_origin_post_may_read_the_answer(confirm, prop):
    response = confirm(order(), HTTP_ORIGIN="https://shop.acme.example")

    answer(response, 200, "no_attribution")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    assert response["Access-Control-Expose-Headers"] == "X-Request-ID"


@pytest.mark.parametrize("path", ["/api/Affiliates/cancel", "/api/Affiliates/update"])
def test_cancel_and_update_answer_no_cors(client, api, db, path):
    preflight = client.options(
        path, HTTP_ORIGIN="https://shop.acme.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    post = api.post(path, {"order_id": "A-1001"}, HTTP_ORIGIN="https://shop.acme.example")

    assert "Access-Control-Allow-Origin" not in preflight
    assert "Access-Control-Allow-Origin" not in post


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8"])
def test_it_accepts_a_json_body_sent_as_text_plain_by_send_beacon(confirm, prop, creator, content_type):
    click = click_on(prop, creator=creator)

    response = confirm(order(clickId=click.click_id), content_type=content_type)

    answer(response, 200, "tracked")
    assert Commission.objects.exists()
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_body_that_starts_with_a_utf8_byte_order_mark_is_read_as_json(confirm, prop, creator):
    # Some Windows tools write one; RFC 8259 lets a parser ignore it, and an order is not lost to it.
    click = click_on(prop, creator=creator)

    response = confirm(b"\xef\xbb\xbf" + json.dumps(order(clickId=click.click_id)).encode())

    answer(response, 200, "tracked")
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_key_repeated_inside_a_field_no_rule_reads_does_not_lose_the_order(confirm, prop):
    raw = json.dumps(order(meta="<meta>")).replace('"<meta>"', '{"a": 1, "a": 2}')

    answer(confirm(raw), 200, "no_attribution")
    assert json.loads(OutcomeEvent.objects.get().request_body)["meta"] == {"a": 2}


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps(order(orderId="\ud800")),  # a lone surrogate: no encoding can hold it
        json.dumps(order(orderId="A-\u0000")),  # U+0000: no PostgreSQL text column can hold it
        json.dumps(order(notes="\u0000")),
        json.dumps(order(customer_email="\ud800@example.com")),
        b"{\x00}",
    ],
)
def test_text_no_database_can_store_is_invalid_params_and_the_event_is_recorded(confirm, prop, raw):
    response = confirm(raw)

    body = answer(response, 400, "invalid_params")
    assert "not valid JSON" in body["error"]
    assert not Order.objects.exists()
    assert [e[:2] for e in events()] == [("invalid_params", 400)]
    assert OutcomeEvent.objects.get().request_body  # kept as a preview


def test_escaped_text_that_only_looks_like_an_escape_is_kept(confirm, prop):
    response = confirm(order(orderId="A-\\u0000", notes="Gr\u00fc\u00dfe \ud83d\ude00"))

    answer(response, 200, "no_attribution")
    assert Order.objects.get().order_id == "A-\\u0000"


@pytest.mark.parametrize("raw", [b"", b"  \n"])
def test_an_empty_body_is_invalid_params_that_says_so(confirm, db, raw):
    body = answer(confirm(raw), 400, "invalid_params")

    assert body["error"] == "Request body is empty. Fix: send a JSON object."


def chunked(client, body: bytes):
    """POST as gunicorn hands over a `Transfer-Encoding: chunked` body: de-chunked, without Content-Length."""
    return client.generic(
        "POST",
        URL,
        b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True},
    )


def test_it_reads_a_chunked_body(client, prop):
    response = chunked(client, json.dumps(order()).encode())

    answer(response, 200, "no_attribution")
    assert Order.objects.get().order_id == "A-1001"
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_a_chunked_body_over_the_size_cap_is_refused_with_413(client, prop):
    response = chunked(client, json.dumps(order(notes="x" * 70_000)).encode())

    answer(response, 413, "invalid_params")
    assert not Order.objects.exists()


def test_the_path_with_a_trailing_slash_is_answered_without_a_redirect(api, prop):
    response = api.post(URL + "/", order())

    answer(response, 200, "no_attribution")
    assert Order.objects.exists()
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_a_wrong_method_is_a_json_405_and_not_an_event(client, db):
    response = client.get(URL)

    assert response.status_code == 405
    assert response.json()["success"] is False
    assert not OutcomeEvent.objects.exists()


# --- service-side faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", ["attribution_order", "attribution_commission"])
def test_a_failed_save_answers_insert_failed_and_keeps_nothing_half_written(
    confirm, prop, creator, spool_dir, table
):
    click = click_on(prop, creator=creator)

    with failing_writes_to(table):
        response = confirm(order(clickId=click.click_id))

    body = answer(response, 200, "insert_failed")
    assert "Nothing to change" in body["message"]
    assert not Order.objects.exists()
    assert not Commission.objects.exists()
    assert events() == [("insert_failed", 200, prop.brand_id, "A-1001", False)]


def test_an_order_whose_save_failed_can_be_tracked_when_sent_again(confirm, prop, creator, spool_dir):
    click = click_on(prop, creator=creator)
    with failing_writes_to("attribution_commission"):
        answer(confirm(order(clickId=click.click_id)), 200, "insert_failed")

    answer(confirm(order(clickId=click.click_id)), 200, "tracked")
    assert Commission.objects.count() == 1


def test_an_unexpected_error_answers_json_handler_error_never_an_html_500(
    confirm, prop, monkeypatch, spool_dir
):
    def crash(**kwargs):
        raise RuntimeError("bug in the decision code")

    monkeypatch.setattr("attribution.orders.confirmation._judge", crash)

    response = confirm(order())

    body = answer(response, 200, "handler_error")
    assert "Nothing to change" in body["message"]
    assert "RuntimeError" not in response.content.decode()
    assert not Order.objects.exists()
    # The service never judged the event, yet its brand still sees it in the health view.
    assert events() == [("handler_error", 200, prop.brand_id, "A-1001", False)]


def test_a_throttled_event_is_recorded_for_the_brand_of_the_page(confirm, prop, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "order_confirmation": "1/min"}
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    answer(confirm(order(orderId="A-2")), 429, "rate_limited")
    assert events()[-1] == ("rate_limited", 429, prop.brand_id, "A-2", False)


# --- cost of the hot path -----------------------------------------------------------------------------------

# Brand resolution is cached after the first event, so no statement reads a brand. On PostgreSQL the
# order, its commission and the outcome row are one statement (attribution.orders.store); elsewhere one INSERT
# each, in one transaction (Django logs its BEGIN and COMMIT as queries; they are left out below).
TRANSACTION = 2
# The throttle's count (one UPSERT in the database; none with REDIS_URL, where it is a cache INCR).
THROTTLE = 1


def statements(captured) -> list[str]:
    """The first word of each statement, without the transaction's own (BEGIN IMMEDIATE on SQLite, COMMIT)."""
    words = [q["sql"].split()[0] for q in captured.captured_queries]
    return [word for word in words if word not in ("BEGIN", "COMMIT")]


def stored_with_its_record(*rows: str) -> list[str]:
    """The statements that store an order's rows and its outcome row, on this database."""
    return ["WITH"] if connection.vendor == "postgresql" else ["INSERT"] * (len(rows) + 1)


@pytest.mark.django_db(transaction=True)
def test_a_tracked_order_costs_one_read_and_one_write(confirm, prop, creator, django_assert_max_num_queries):
    click = click_on(prop, creator=creator)
    # A warm process: it has read the brand's review settings (attribution.review.config) once.
    answer(
        confirm(order(orderId="WARM-UP", clickId=click_on(prop, creator=creator).click_id)), 200, "tracked"
    )

    with django_assert_max_num_queries(4 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001", clickId=click.click_id)), 200, "tracked")

    # the throttle's count; the click (with its orders of the last hour, for the click_reuse review rule); the
    # order, its commission and the outcome record
    assert statements(captured) == ["INSERT", "SELECT", *stored_with_its_record("order", "commission")]


@pytest.mark.django_db(transaction=True)
def test_a_tracked_order_by_code_costs_one_read_and_one_write(
    confirm, prop, creator, django_assert_max_num_queries
):
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")
    answer(confirm(order(orderId="WARM-UP", code="ANA10")), 200, "tracked")  # reads the review settings once

    with django_assert_max_num_queries(4 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001", code="ANA10")), 200, "tracked")

    assert statements(captured) == ["INSERT", "SELECT", *stored_with_its_record("order", "commission")]


@pytest.mark.django_db(transaction=True)
def test_a_direct_order_costs_one_write(confirm, prop, django_assert_max_num_queries):
    answer(confirm(order(orderId="WARM-UP")), 200, "no_attribution")

    with django_assert_max_num_queries(2 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001")), 200, "no_attribution")

    # the throttle's count; the order and the outcome record
    assert statements(captured) == ["INSERT", *stored_with_its_record("order")]


@pytest.mark.django_db(transaction=True)
def test_a_repeated_order_is_answered_duplicate_by_the_write_itself(
    confirm, prop, django_assert_max_num_queries
):
    answer(confirm(order(orderId="A-1001")), 200, "no_attribution")

    with django_assert_max_num_queries(3 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001")), 400, "duplicate_order")

    if connection.vendor == "postgresql":  # ON CONFLICT decides it: no error, no second look
        # The throttle's count, the write that finds the order id taken, and the repeat's own outcome row
        # (its answer is made only for a repeat, attribution.orders.store).
        assert statements(captured) == ["INSERT", "WITH", "INSERT"]
    assert Order.objects.count() == 1
    assert [e[0] for e in events()] == ["no_attribution", "duplicate_order"]


# --- account managers' edits reach the resolution cache at once ---------------------------------------------


def test_a_property_whose_host_changes_stops_resolving_under_the_old_host(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")  # shop.acme.example now cached

    prop.host = "store.acme.example"
    prop.save()

    answer(confirm(order(orderId="A-2")), 200, "unregistered_property")
    answer(confirm(order(orderId="A-3", page_url="https://store.acme.example/thanks")), 200, "no_attribution")


def test_a_property_moved_to_another_domain_stops_resolving_under_the_old_one(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.host = "shop.acme-store.example"
    prop.save()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")
    assert resolve_host("shop.acme-store.example").property_id == prop.id


def test_a_deleted_property_stops_resolving_at_once(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.delete()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")


def test_a_host_changed_in_the_admin_resolves_anew_at_once(confirm, client, prop, admin_user):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")
    client.force_login(admin_user)

    response = client.post(
        f"/admin/brands/property/{prop.pk}/change/", {"brand": prop.brand_id, "host": "store.acme.example"}
    )

    assert response.status_code == 302, response.content
    answer(confirm(order(orderId="A-2")), 200, "unregistered_property")
    answer(confirm(order(orderId="A-3", page_url="https://store.acme.example/")), 200, "no_attribution")


def test_a_property_deleted_in_the_admin_stops_resolving_at_once(confirm, client, prop, admin_user):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")
    client.force_login(admin_user)

    response = client.post(f"/admin/brands/property/{prop.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")


def test_a_brand_deactivated_by_its_account_manager_stops_resolving_at_once(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.brand.is_active = False
    prop.brand.save()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")
