"""Commissions stored before conversion existed are converted once, at their own orders' dates; those whose
currency had no rate are converted once one comes (docs/currencies.md)."""

import io
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

from django.core.management import call_command

from attribution.fx import ecb, loading
from attribution.models import Commission
from tests.factories import CommissionFactory, OrderFactory

from .conftest import FRIDAY, FRIDAY_NOON


def unconverted(brand, *, currency, amount, at=FRIDAY_NOON):
    order = OrderFactory(
        brand=brand, currency=currency, amount=amount * 10, outcome="tracked", received_at=at
    )
    return CommissionFactory(order=order, amount=amount, reporting_currency="")


def test_the_command_converts_each_commission_once_at_its_orders_date(rates, brand):
    eur = unconverted(brand, currency="EUR", amount=Decimal("20.00"))
    usd = unconverted(brand, currency="USD", amount=Decimal("5.00"))
    out = io.StringIO()

    call_command("convert_commissions", stdout=out)
    call_command("convert_commissions", stdout=out)

    assert out.getvalue().splitlines() == [
        "Converted 2 commissions; 0 have no rate (their reason is kept).",
        "Converted 0 commissions; 0 have no rate (their reason is kept).",
    ]
    eur, usd = Commission.objects.get(pk=eur.pk), Commission.objects.get(pk=usd.pk)
    assert (eur.reporting_amount, eur.fx_rate, eur.fx_rate_date) == (Decimal("22.34"), "1.1172", FRIDAY)
    assert (usd.reporting_amount, usd.fx_source) == (Decimal("5.00"), "same currency")


def test_a_commission_that_had_no_rate_is_converted_when_one_comes(rates, brand):
    aed = unconverted(brand, currency="AED", amount=Decimal("30.00"))
    call_command("convert_commissions", stdout=io.StringIO())
    assert "AED" in Commission.objects.get(pk=aed.pk).fx_reason

    loading.store([ecb.Rate(FRIDAY, "AED", Decimal("4.1030"))])  # a source that publishes the dirham
    out = io.StringIO()
    call_command("convert_commissions", "--retry", stdout=out)

    aed = Commission.objects.get(pk=aed.pk)
    assert out.getvalue().startswith("Converted 1 commissions")
    # 30.00 AED × 1.1172 / 4.1030 = 8.1686...
    assert (aed.reporting_amount, aed.fx_reason) == (Decimal("8.17"), "")


def test_a_brand_reads_its_own_currency_else_its_shops_else_usd(brand):
    assert brand.reporting_currency_now() == "USD"
    shop = SimpleNamespace(shop_currency="cad")  # a connection once it records its shop's currency
    assert brand.reporting_currency_now([shop]) == "CAD"
    brand.reporting_currency = "EUR"
    assert brand.reporting_currency_now([shop]) == "EUR"


def test_a_brands_reporting_currency_reaches_the_order_path(brand, prop):
    from brands.resolution import resolve_host

    brand.reporting_currency = "GBP"
    brand.save()

    assert resolve_host(prop.host).brand.reporting_currency == "GBP"


def test_the_order_date_is_the_one_in_frankfurt(rates, brand):
    late = datetime(2026, 10, 29, 23, 30, tzinfo=UTC)
    commission = unconverted(brand, currency="EUR", amount=Decimal("20.00"), at=late)

    call_command("convert_commissions", stdout=io.StringIO())

    assert Commission.objects.get(pk=commission.pk).fx_rate_date == FRIDAY
