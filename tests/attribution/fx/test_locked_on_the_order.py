"""A tracked order's commission is converted into its brand's reporting currency when it is created, at the
ECB rates of the order's own date, and keeps what it was converted with (docs/currencies.md)."""

from datetime import timedelta
from decimal import Decimal

import pytest

from attribution.models import Commission
from attribution.orders.confirmation import confirm_order
from tests.factories import ClickFactory

from .conftest import FRIDAY, FRIDAY_NOON, SATURDAY_NOON, THURSDAY


def order(prop, creator, *, amount, currency, at, order_id="FX-1"):
    """An order confirmation through a creator's click, received at `at`; its commission (10 %)."""
    click = ClickFactory(property=prop, creator=creator, clicked_at=at - timedelta(hours=1))
    result = confirm_order(
        payload={
            "orderId": order_id,
            "orderAmount": amount,
            "currency": currency,
            "clickId": click.click_id,
            "page_url": f"https://{prop.host}/thanks",
        },
        received_at=at,
    )
    assert result.outcome == "tracked", result.body()
    return Commission.objects.get(order__order_id=order_id)


def reporting_in(brand, currency):
    brand.reporting_currency = currency
    brand.save()


def test_an_eur_order_of_a_usd_brand_converts_at_the_ecb_rate_of_its_date(rates, prop, creator):
    commission = order(prop, creator, amount="200.00", currency="EUR", at=FRIDAY_NOON)

    assert (commission.amount, commission.currency) == (Decimal("20.00"), "EUR")
    assert commission.reporting_currency == "USD"
    assert commission.fx_rate == "1.1172"
    assert commission.fx_rate_date == FRIDAY
    assert commission.fx_source == "ECB"
    assert commission.reporting_amount == Decimal("22.34")  # 20.00 × 1.1172 = 22.344
    assert commission.fx_reason == ""


def test_an_order_of_the_weekend_takes_fridays_rate(rates, prop, creator):
    commission = order(prop, creator, amount="200.00", currency="EUR", at=SATURDAY_NOON)

    assert commission.fx_rate_date == FRIDAY
    assert commission.reporting_amount == Decimal("22.34")


def test_an_order_converts_at_the_rate_of_its_own_day_not_the_newest(rates, prop, creator):
    commission = order(prop, creator, amount="200.00", currency="EUR", at=FRIDAY_NOON - timedelta(days=1))

    assert (commission.fx_rate_date, commission.fx_rate) == (THURSDAY, "1.12")
    assert commission.reporting_amount == Decimal("22.40")


def test_a_cross_rate_goes_through_the_euro_at_full_precision_and_rounds_once(rates, brand, prop, creator):
    reporting_in(brand, "GBP")
    commission = order(prop, creator, amount="123.45", currency="USD", at=FRIDAY_NOON)

    # 12.35 USD (12.345 rounded half up) × (0.8338 / 1.1172): 28 digits kept, then 9.22 GBP.
    rate = Decimal("0.8338") / Decimal("1.1172")
    assert commission.amount == Decimal("12.35")
    assert commission.fx_rate == format(rate, "f")
    assert len(commission.fx_rate.replace("0.", "", 1)) == 28
    assert commission.reporting_amount == Decimal("9.22")  # 9.2170... rounded once


@pytest.mark.parametrize(
    ("currency", "expected"),
    [
        # 10.00 USD × 175.68 / 1.1172 = 1572.502685... yen: whole yen.
        ("JPY", Decimal("1573")),
        # 10.00 USD × 0.34312 / 1.1172 = 3.071249552... dinar: three places.
        ("KWD", Decimal("3.071")),
    ],
)
def test_the_reporting_amount_rounds_to_the_currencys_minor_units(
    rates, brand, prop, creator, currency, expected
):
    reporting_in(brand, currency)
    commission = order(prop, creator, amount="100.00", currency="USD", at=FRIDAY_NOON)

    assert commission.reporting_currency == currency
    assert commission.reporting_amount == expected
    assert commission.reporting_amount == commission.reporting_amount.quantize(expected)


def test_an_order_in_the_reporting_currency_needs_no_rate(rates, prop, creator):
    commission = order(prop, creator, amount="80.00", currency="USD", at=FRIDAY_NOON)

    assert commission.reporting_amount == Decimal("8.00")
    assert (commission.fx_rate, commission.fx_source) == ("1", "same currency")
    assert commission.fx_rate_date == FRIDAY


def test_a_currency_with_no_rate_stays_unconverted_with_its_reason(rates, prop, creator):
    commission = order(prop, creator, amount="300.00", currency="AED", at=FRIDAY_NOON)

    assert commission.amount == Decimal("30.00")
    assert commission.reporting_currency == "USD"
    assert commission.reporting_amount is None
    assert commission.fx_rate == "" and commission.fx_rate_date is None
    assert commission.fx_reason == (
        "No ECB reference rate for AED on 2026-10-30, the last publication on or before 2026-10-30."
    )


def test_a_late_evening_order_in_utc_takes_the_rate_of_its_date_in_frankfurt(rates, prop, creator):
    # Thursday 23:30 UTC is Friday 00:30 in Frankfurt, whose calendar the ECB dates its rates by.
    at = FRIDAY_NOON - timedelta(hours=12, minutes=30)
    commission = order(prop, creator, amount="200.00", currency="EUR", at=at)

    assert commission.fx_rate_date == FRIDAY
