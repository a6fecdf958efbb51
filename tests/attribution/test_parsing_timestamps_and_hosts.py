"""The field rules (docs/decisions.md, "Field formats") (attribution/parsing.py) of timestamps, clickId and
code, hosts, emails and request bodies: what each accepts and what it refuses."""

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from attribution.parsing import (
    FieldError,
    is_click_id,
    loads_strict,
    parse_optional_text,
    parse_timestamp,
)
from brands.hosts import hash_email, normalize_host, registrable_domain
from tests.attribution.json_bodies import json_values

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
