"""The field rules (docs/decisions.md, "Field formats") (attribution/parsing.py): what each field accepts and what it refuses.

Values arrive as the strict JSON parser hands them over: numbers with a fraction or an exponent as
Decimal, whole numbers as int, and str, bool, None, list or dict.
"""

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from attribution import parsing
from attribution.currencies import currency_exponent
from attribution.parsing import (
    FieldError,
    is_click_id,
    loads_strict,
    parse_amount,
    parse_bool,
    parse_currency,
    parse_optional_text,
    parse_order_id,
    parse_timestamp,
)
from brands.hosts import hash_email, normalize_host, registrable_domain

# Every value a JSON body can carry, as loads_strict returns it.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def order_amount(value):
    return parse_amount(value, allow_zero=False)


# --- amounts ------------------------------------------------------------------------------------------------


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


# --- order ids ----------------------------------------------------------------------------------------------


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


# --- currency -----------------------------------------------------------------------------------------------


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


# --- booleans -----------------------------------------------------------------------------------------------


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


# --- timestamps ---------------------------------------------------------------------------------------------

CHRISTMAS_EVE = datetime(2026, 12, 24, tzinfo=UTC)


@pytest.mark.parametrize(
    "sent",
    [
        "2026-12-24T00:00:00Z",
        "2026-12-24T00:00:00+00:00",
        "2026-12-24T01:00:00+01:00",
        "2026-12-24T00:00:00",  # no offset: UTC
        "2026-12-24",
        1798070400,
        "1798070400",
        1798070400000,  # epoch milliseconds
        "1798070400000",
        Decimal("1798070400.0"),
        "20261224",  # ISO 8601 basic date
        20261224,
        "20261224T000000Z",
    ],
)
def test_a_timestamp_is_iso_8601_or_epoch_seconds_or_milliseconds(sent):
    assert parse_timestamp(sent) == CHRISTMAS_EVE


@pytest.mark.parametrize("sent", ["20261332", 20260230, "12345678", Decimal("20261224.5")])
def test_eight_digits_that_are_no_calendar_date_stay_epoch_seconds(sent):
    assert parse_timestamp(sent) == datetime.fromtimestamp(float(Decimal(sent)), tz=UTC)


@pytest.mark.parametrize(
    "sent",
    [
        "next tuesday",
        "24/12/2026",
        "2026-13-45",
        "",
        True,
        None,
        {"date": "2026-12-24"},
        ["2026-12-24"],
        Decimal("1E+999999999"),
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
        "9999-12-31T23:59:59-01:00",  # after year 9999 in UTC
        -(10**14),
    ],
)
def test_an_unreadable_timestamp_is_a_field_error(sent):
    with pytest.raises(FieldError):
        parse_timestamp(sent)


@given(
    st.datetimes(
        # Epoch milliseconds and seconds are told apart by size, which works from 1973-03-03 to 5138.
        min_value=datetime(1973, 3, 4),
        max_value=datetime(4999, 12, 31),
        timezones=st.just(UTC)
        | st.builds(timezone, st.integers(-14 * 60, 14 * 60).map(lambda m: timedelta(minutes=m))),
    )
)
def test_iso_epoch_seconds_and_epoch_milliseconds_name_the_same_instant(moment):
    moment = moment.replace(microsecond=0)
    seconds = int(moment.timestamp())
    assert parse_timestamp(moment.isoformat()) == moment
    assert parse_timestamp(seconds) == moment
    assert parse_timestamp(str(seconds * 1000)) == moment
    assert parse_timestamp(moment.isoformat()).tzinfo is not None


@given(json_values)
@example(Decimal("1E+999999999"))
@example("0001-01-01T00:00:00+14:00")
def test_a_timestamp_is_an_aware_datetime_or_a_field_error_never_anything_else(value):
    try:
        parsed = parse_timestamp(value)
    except FieldError:
        return
    assert isinstance(parsed, datetime)
    assert parsed.utcoffset() is not None


# --- clickId and code ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sent", [None, "", "   "])
def test_null_or_blank_click_id_or_code_means_not_given(sent):
    assert parse_optional_text(sent) is None


def test_a_click_id_or_code_is_trimmed():
    assert parse_optional_text("  ana10 ") == "ana10"


@pytest.mark.parametrize(
    "sent, readable",
    [
        ("clk_0123456789abcdef0123456789abcdef", True),
        ('"clk_0123456789abcdef0123456789abcdef"', False),
        ("clk%5F0123456789abcdef0123456789abcdef", False),
        ("sms_click_id=clk_0123456789abcdef0123456789abcdef", False),
        ("clk_0123456789ABCDEF0123456789ABCDEF", False),
        ("clk_0123456789abcdef0123456789abcde", False),
        ("undefined", False),
        ("null", False),
    ],
)
def test_a_click_id_is_readable_only_exactly_as_minted(sent, readable):
    assert is_click_id(sent) is readable


# --- hosts, emails, bodies ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sent, host",
    [
        ("https://Shop.Acme.example:8443/checkout?x=1", "shop.acme.example"),
        ("https://www.acme.example/", "acme.example"),
        ("acme.example.", "acme.example"),
        ("https://bücher.example/", "xn--bcher-kva.example"),
        ("https://BÜCHER.example/", "xn--bcher-kva.example"),
        ("https://xn--bcher-kva.example/", "xn--bcher-kva.example"),
        ("https://www.bücher.example/", "xn--bcher-kva.example"),
    ],
)
def test_a_host_is_lower_cased_without_port_trailing_dot_or_www(sent, host):
    assert normalize_host(sent) == host


@pytest.mark.parametrize(
    "unicode_host, browser_host",
    [("straße.example", "xn--strae-oqa.example"), ("ς-shop.example", "xn---shop-8ce.example")],
)
def test_an_idn_host_is_punycode_as_browsers_write_it(unicode_host, browser_host):
    # IDNA 2008 (UTS 46, non-transitional), which browsers use: ß and ς are kept, not made ss and σ.
    assert normalize_host(f"https://{unicode_host}/") == browser_host
    assert normalize_host(f"https://{browser_host}/") == browser_host


def test_the_registrable_domain_follows_the_public_suffix_list():
    assert registrable_domain("shop.acme.example") == "acme.example"
    assert registrable_domain("shop.acme.co.uk") == "acme.co.uk"


def test_an_email_hash_ignores_case_and_surrounding_space():
    assert hash_email("  Shopper@Example.COM ") == hash_email("shopper@example.com")
    assert len(hash_email("shopper@example.com")) == 64
    assert "shopper" not in hash_email("shopper@example.com")


def test_the_body_parser_keeps_fractions_as_decimal_and_refuses_nan_and_duplicate_keys():
    assert loads_strict(b'{"orderAmount": 59.90}') == {"orderAmount": Decimal("59.90")}
    with pytest.raises(ValueError):
        loads_strict(b'{"orderAmount": NaN}')
    with pytest.raises(ValueError):
        loads_strict(b'{"orderId": "1", "orderId": "2"}')
