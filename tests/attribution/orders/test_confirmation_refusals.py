"""POST /api/order_confirmation (docs/api.md; docs/decisions.md): the 400 outcomes, each field rule's refusal.

Every test checks the answer, what was stored (Order, Commission) and the one outcome record written.
"""

import json
from decimal import Decimal

import pytest

from attribution.models import Commission, Order

from .confirming import (
    ABSENT,
    OTHER_BRAND_PAGE,
    PAGE,
    UNKNOWN_CLICK,
    answer,
    click_on,
    events,
    order,
    with_raw_amount,
)

pytestmark = pytest.mark.django_db


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
