"""The field rules (docs/decisions.md, "Field formats") (attribution/parsing.py) of amounts, order ids,
currencies and flags: what each field accepts and what it refuses.

Values arrive as the strict JSON parser hands them over: numbers with a fraction or an exponent as
Decimal, whole numbers as int, and str, bool, None, list or dict.
"""

from decimal import Decimal

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from attribution import parsing
from attribution.currencies import currency_exponent
from attribution.parsing import (
    FieldError,
    parse_amount,
    parse_bool,
    parse_currency,
    parse_order_id,
)
from tests.attribution.json_bodies import json_values


def order_amount(value):
    return parse_amount(value, allow_zero=False)


@pytest.mark.parametrize(
    "sent, kept",
    [
        (Decimal("59.90"), Decimal("59.90")),
        (60, Decimal("60")),
        ("59.90", Decimal("59.90")),
        ("  59.90\n", Decimal("59.90")),
        ("0.01", Decimal("0.01")),
        (".5", Decimal("0.5")),
        ("100.", Decimal("100")),
        # An exponent in a JSON *number* is still a number; only exponents inside strings are refused.
        (Decimal("1E+3"), Decimal("1000")),
        ("999999999999.999999", Decimal("999999999999.999999")),
        ("59.9000000", Decimal("59.9")),  # trailing zeros beyond six places change nothing
    ],
)
def test_an_amount_accepts_numbers_and_plain_decimal_strings(sent, kept):
    parsed = order_amount(sent)
    assert parsed == kept
    assert isinstance(parsed, Decimal)


@pytest.mark.parametrize(
    "sent",
    [
        "$59.90",
        "59.90 USD",
        "€59,90",
        "1,000.00",
        "1 000.00",
        "59,90",
        "***THE ORDER TOTAL***",
        "{{ order.total }}",
        "<span>59.90</span>",
        "1e3",
        "1E3",
        "NaN",
        "nan",
        "Infinity",
        "-Infinity",
        "0x10",
        "",
        "   ",
        "59.90.10",
        "٥٩",  # Arabic-Indic digits: int() would read them, a brand's template did not mean them
    ],
)
def test_an_amount_refuses_strings_that_are_not_a_plain_decimal(sent):
    with pytest.raises(FieldError):
        order_amount(sent)


@pytest.mark.parametrize("sent", [True, False, None, [59.9], {"value": 59.9}])
def test_an_amount_refuses_booleans_null_lists_and_objects(sent):
    with pytest.raises(FieldError):
        order_amount(sent)


@pytest.mark.parametrize("sent", [0, Decimal("0.00"), "0", "-0", -5, Decimal("-0.01"), "-59.90"])
def test_an_order_amount_must_be_greater_than_zero(sent):
    with pytest.raises(FieldError, match="greater than 0"):
        order_amount(sent)


def test_a_new_order_amount_may_be_zero_but_not_negative():
    assert parse_amount(0, allow_zero=True) == 0
    with pytest.raises(FieldError, match="negative"):
        parse_amount("-1", allow_zero=True)


@pytest.mark.parametrize(
    "sent",
    [
        Decimal("1E+12"),
        "1000000000000",
        Decimal("1E+999999999"),  # a valid JSON number; must not overflow the decimal context
        Decimal("1E-999999999"),  # must not be flushed to an acceptable amount
        "0.0000001",
        "999999999999.9999995",  # below 10^12 as sent, 10^12 once rounded to six decimals
        Decimal("999999999999.99999950"),
    ],
)
def test_an_amount_out_of_range_is_refused_not_crashed_on(sent):
    with pytest.raises(FieldError):
        order_amount(sent)


@given(
    st.decimals(
        min_value=Decimal("0.000001"), max_value=Decimal("999999999999.999999"), places=6, allow_nan=False
    )
)
def test_a_plain_decimal_reads_the_same_as_a_json_number_and_as_a_string(amount):
    assert order_amount(amount) == amount
    assert order_amount(format(amount, "f")) == amount
    assert order_amount(f" {amount:f}\n") == amount


@given(json_values)
@example(Decimal("1E+999999999"))
@example(Decimal("-1E-999999999"))
@example(Decimal("999999999999.9999995"))
@example("1" * 5000)
def test_an_amount_is_a_positive_decimal_or_a_field_error_never_anything_else(value):
    try:
        parsed = order_amount(value)
    except FieldError:
        return
    assert isinstance(parsed, Decimal)
    assert parsed.is_finite() and parsed > 0
    assert parsed < Decimal(10) ** parsing.MAX_AMOUNT_INTEGER_DIGITS


@given(st.text(min_size=1, max_size=20))
def test_a_string_with_anything_but_digits_one_point_and_a_sign_is_refused(text):
    stripped = text.strip()
    assume(any(c not in "0123456789.+-" for c in stripped))
    with pytest.raises(FieldError):
        order_amount(text)


@pytest.mark.parametrize(
    "sent, kept",
    [
        ("A-1001", "A-1001"),
        ("  A-1001 \t", "A-1001"),
        (123, "123"),
        ("123", "123"),
        (0, "0"),
        (Decimal("123.0"), "123"),  # a number without a fraction is that integer
        (Decimal("1E+3"), "1000"),
        ("x" * 255, "x" * 255),
        ("#1001/ä", "#1001/ä"),
    ],
)
def test_an_order_id_is_a_trimmed_string_or_an_integer_as_its_decimal_string(sent, kept):
    assert parse_order_id(sent) == kept


@pytest.mark.parametrize(
    "sent",
    [
        Decimal("12.5"),
        Decimal("0.1"),
        True,
        False,
        None,
        {"id": 1},
        [1001],
        "",
        "   ",
        "x" * 256,
        Decimal("1E+999999999"),  # 10^999999999 is not built to find out it is too long
        10**300,
    ],
)
def test_an_order_id_refuses_fractions_booleans_null_objects_lists_blanks_and_overlong_values(sent):
    with pytest.raises(FieldError):
        parse_order_id(sent)


@given(st.integers(min_value=-(10**100), max_value=10**100))
def test_an_integer_order_id_and_its_decimal_string_are_the_same_order(number):
    assert parse_order_id(number) == parse_order_id(str(number)) == str(number)


@given(json_values)
@example(Decimal("1E+999999999"))
@example(Decimal("1E+254"))
@example(Decimal("1E+255"))
def test_an_order_id_is_a_short_trimmed_string_or_a_field_error_never_anything_else(value):
    try:
        parsed = parse_order_id(value)
    except FieldError:
        return
    assert isinstance(parsed, str)
    assert 1 <= len(parsed) <= parsing.MAX_ORDER_ID_LENGTH
    assert parsed == parsed.strip()


@pytest.mark.parametrize(
    "sent, kept", [("USD", "USD"), ("usd", "USD"), (" eur ", "EUR"), ("Jpy", "JPY"), ("KWD", "KWD")]
)
def test_a_currency_is_an_iso_4217_code_in_any_case_kept_upper_case(sent, kept):
    assert parse_currency(sent) == kept


@pytest.mark.parametrize("sent", ["ABC", "US", "USDD", "$", "", "dollars", 840, None, True, ["USD"]])
def test_a_currency_refuses_unknown_codes_and_non_strings(sent):
    with pytest.raises(FieldError):
        parse_currency(sent)


@pytest.mark.parametrize("sent", ["XAU", "xdr", "XTS"])
def test_a_currency_without_minor_units_is_refused_and_the_error_says_why(sent):
    with pytest.raises(FieldError, match="no minor units"):
        parse_currency(sent)


def test_currency_exponents_follow_iso_4217():
    assert [currency_exponent(code) for code in ("JPY", "USD", "KWD")] == [0, 2, 3]


@pytest.mark.parametrize(
    "sent, kept",
    [(True, True), (False, False), ("true", True), ("false", False), (" TRUE ", True), (None, False)],
)
def test_a_flag_is_a_json_boolean_or_the_string_true_or_false(sent, kept):
    assert parse_bool(sent) is kept


@pytest.mark.parametrize("sent", ["yes", "1", "0", 1, 0, "", {}, []])
def test_a_flag_refuses_anything_else(sent):
    with pytest.raises(FieldError):
        parse_bool(sent)
