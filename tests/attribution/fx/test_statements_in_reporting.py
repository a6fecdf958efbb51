"""A statement totals in its brand's reporting currency: each line keeps its own currency, its reporting
amount adds its items at their commissions' locked rates, the total adds the lines; what has no rate is shown
apart (docs/currencies.md, "Statements")."""

import csv
import io
from datetime import date
from decimal import Decimal

from attribution.billing.export import csv_lines
from attribution.billing.statements import summarize
from attribution.models import Adjustment, Commission, Statement
from tests.factories import CommissionFactory, CreatorFactory, OrderFactory

from .conftest import FRIDAY_NOON


def billed(brand, statement, *, creator, currency, amount):
    order = OrderFactory(
        brand=brand, currency=currency, amount=amount * 10, outcome="tracked", received_at=FRIDAY_NOON
    )
    return CommissionFactory(
        order=order,
        creator=creator,
        amount=amount,
        state=Commission.State.LOCKED,
        statement=statement,
        locked_at=FRIDAY_NOON,
    )


def statement_with_two_currencies(brand):
    statement = Statement.objects.create(brand=brand, month=date(2026, 10, 1))
    ana, bea = CreatorFactory(brand=brand, name="Ana"), CreatorFactory(brand=brand, name="Bea")
    billed(brand, statement, creator=ana, currency="EUR", amount=Decimal("20.00"))  # 22.34 USD
    billed(brand, statement, creator=ana, currency="EUR", amount=Decimal("5.05"))  # 5.64186 -> 5.64 USD
    billed(brand, statement, creator=ana, currency="USD", amount=Decimal("7.00"))
    billed(brand, statement, creator=bea, currency="GBP", amount=Decimal("10.00"))  # 13.39889... -> 13.40 USD
    return statement


def test_the_total_in_the_reporting_currency_is_the_sum_of_its_lines(rates, brand):
    summary = summarize(statement_with_two_currencies(brand))

    reporting = {(line.creator, line.currency): line.reporting for line in summary.lines}
    assert reporting == {
        ("Ana", "EUR"): Decimal("27.98"),
        ("Ana", "USD"): Decimal("7.00"),
        ("Bea", "GBP"): Decimal("13.40"),
    }
    assert summary.reporting.currency == "USD"
    assert summary.reporting.total == sum(reporting.values()) == Decimal("48.38")
    assert [(t.currency, t.total) for t in summary.totals] == [
        ("EUR", Decimal("25.05")),
        ("GBP", Decimal("10.00")),
        ("USD", Decimal("7.00")),
    ]
    assert (
        "ECB reference rate of its order's date (rates published 2026-10-30)" in summary.reporting.rates_used
    )


def test_an_item_without_a_rate_is_shown_apart_never_summed_in(rates, brand):
    statement = statement_with_two_currencies(brand)
    aed = billed(
        brand,
        statement,
        creator=CreatorFactory(brand=brand, name="Cy"),
        currency="AED",
        amount=Decimal("30.00"),
    )

    summary = summarize(statement)

    assert summary.reporting.total == Decimal("48.38")
    [apart] = summary.reporting.apart_list
    assert (apart.currency, apart.items, apart.amount) == ("AED", 1, Decimal("30.00"))
    assert apart.reasons == {aed.fx_reason}
    assert next(line for line in summary.lines if line.currency == "AED").reporting is None


def test_an_adjustment_converts_at_its_commissions_locked_rate(rates, brand):
    statement = statement_with_two_currencies(brand)
    commission = Commission.objects.get(currency="GBP")
    Adjustment.objects.create(
        brand=brand,
        commission=commission,
        statement=statement,
        amount=Decimal("-4.00"),
        currency="GBP",
        reason=Adjustment.Reason.UPDATE,
    )

    summary = summarize(statement)

    # -4.00 GBP × 1.1172 / 0.8338 = -5.3595... -> -5.36 USD, on Bea's GBP line.
    assert next(line for line in summary.lines if line.currency == "GBP").reporting == Decimal("8.04")
    assert summary.reporting.total == Decimal("43.02")


def test_the_csv_gives_each_rows_reporting_amount_rate_and_date(rates, brand):
    statement = statement_with_two_currencies(brand)

    rows = list(csv.DictReader(io.StringIO("".join(csv_lines(statement)).removeprefix("\ufeff"))))

    gbp = next(r for r in rows if r["currency"] == "GBP")
    assert (gbp["amount"], gbp["reporting_currency"], gbp["reporting_amount"]) == ("10.00", "USD", "13.40")
    assert gbp["fx_rate"] == format(Decimal("1.1172") / Decimal("0.8338"), "f")
    assert (gbp["fx_rate_date"], gbp["fx_source"]) == ("2026-10-30", "ECB")
    assert sum(Decimal(r["reporting_amount"]) for r in rows) == summarize(statement).reporting.total
