"""A statement totals in its brand's reporting currency: each line keeps its own currency, its reporting
amount adds its items at their commissions' locked rates, the total adds the lines; what has no rate is shown
apart (docs/currencies.md, "Statements"). The lists total each statement as its own page does."""

import csv
import io
from datetime import date
from decimal import Decimal

from attribution.billing.export import csv_lines
from attribution.billing.reporting import rates_used
from attribution.billing.statements import summarize, totals_of
from attribution.fx import conversion
from attribution.models import Adjustment, Commission, Statement
from tests.factories import BrandFactory, CommissionFactory, CreatorFactory, OrderFactory

from .conftest import FRIDAY_NOON


def billed(brand, statement, *, creator, currency, amount, **locked):
    """A commission locked on `statement` (`locked`: its conversion's columns, when not the brand's own)."""
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
        **locked,
    )


def clawback(statement, commission, amount: str) -> Adjustment:
    return Adjustment.objects.create(
        brand=statement.brand,
        commission=commission,
        statement=statement,
        amount=Decimal(amount),
        currency=commission.currency,
        reason=Adjustment.Reason.CANCEL,
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


def test_a_commission_paid_then_changed_counts_its_paid_amount_at_its_locked_rate(rates, brand):
    statement = statement_with_two_currencies(brand)
    gbp = Commission.objects.get(currency="GBP")
    Commission.objects.filter(pk=gbp.pk).update(
        state=Commission.State.PAID, paid_at=FRIDAY_NOON, paid_amount=Decimal("10.00")
    )
    gbp.refresh_from_db()
    gbp.change_amount(Decimal("40.00"), Decimal("4.00"), at=FRIDAY_NOON)  # its locked amount: 5.36 USD now

    summary = summarize(statement)

    assert Commission.objects.get(pk=gbp.pk).reporting_amount == Decimal("5.36")
    assert next(line for line in summary.lines if line.currency == "GBP").reporting == Decimal("13.40")
    assert summary.reporting.total == Decimal("48.38")


def test_a_commission_locked_in_the_brands_earlier_currency_is_shown_apart(rates, brand):
    statement = statement_with_two_currencies(brand)
    in_eur = conversion.convert(Decimal("9.00"), "GBP", to="EUR", ordered_at=FRIDAY_NOON)
    billed(
        brand,
        statement,
        creator=CreatorFactory(brand=brand, name="Di"),
        currency="GBP",
        amount=Decimal("9.00"),
        **conversion.columns(in_eur),
    )

    summary = summarize(statement)

    assert summary.reporting.total == Decimal("48.38")
    [apart] = summary.reporting.apart_list
    assert (apart.currency, apart.items, apart.amount) == ("GBP", 1, Decimal("9.00"))
    assert apart.reasons == {"Converted into EUR when it was created."}


def test_the_lists_total_each_statement_as_its_own_page_does(rates, brand):
    october = statement_with_two_currencies(brand)  # 48.38 USD
    aed = billed(
        brand,
        october,
        creator=CreatorFactory(brand=brand, name="Cy"),
        currency="AED",
        amount=Decimal("30.00"),
    )
    november = Statement.objects.create(brand=brand, month=date(2026, 11, 1))
    clawback(november, Commission.objects.get(currency="GBP"), "-4.00")  # -5.36 USD
    clawback(november, aed, "-30.00")
    december = Statement.objects.create(brand=brand, month=date(2026, 12, 1))
    listed = [december, november, october]

    totals = totals_of(listed, {brand.pk: "USD"})

    assert [totals[s.pk].reporting.total for s in listed] == [Decimal(0), Decimal("-5.36"), Decimal("48.38")]
    for statement in listed:
        own, shown = summarize(statement).reporting, totals[statement.pk].reporting
        assert (shown.total, shown.rates_used) == (own.total, own.rates_used)
        assert [(a.currency, a.items, a.amount, a.reasons) for a in shown.apart_list] == [
            (a.currency, a.items, a.amount, a.reasons) for a in own.apart_list
        ]
    assert [(a.currency, a.items, a.amount) for a in totals[october.pk].reporting.apart_list] == [
        ("AED", 1, Decimal("30.00"))
    ]
    assert totals[october.pk].reporting.apart["AED"].reasons == {aed.fx_reason}
    assert (totals[november.pk].commissions, totals[november.pk].adjustments) == (0, 2)
    assert "rates published 2026-10-30" in rates_used("USD", [t.reporting for t in totals.values()])


def test_statements_of_brands_with_other_currencies_total_in_each_ones_own(rates, brand):
    euro_brand = BrandFactory(name="Euro", reporting_currency="EUR")
    ours = statement_with_two_currencies(brand)
    theirs = statement_with_two_currencies(euro_brand)

    totals = totals_of([ours, theirs], {brand.pk: "USD", euro_brand.pk: "EUR"})

    assert (totals[ours.pk].reporting.currency, totals[ours.pk].reporting.total) == ("USD", Decimal("48.38"))
    # 25.05 EUR, 7.00 USD at 1.1172 (6.27) and 10.00 GBP at 0.8338 (11.99).
    assert (totals[theirs.pk].reporting.currency, totals[theirs.pk].reporting.total) == (
        "EUR",
        summarize(theirs).reporting.total,
    )
    assert totals[theirs.pk].reporting.total == Decimal("43.31")


def test_the_csv_gives_each_rows_reporting_amount_rate_and_date(rates, brand):
    statement = statement_with_two_currencies(brand)

    rows = list(csv.DictReader(io.StringIO("".join(csv_lines(statement)).removeprefix("\ufeff"))))

    gbp = next(r for r in rows if r["currency"] == "GBP")
    assert (gbp["amount"], gbp["reporting_currency"], gbp["reporting_amount"]) == ("10.00", "USD", "13.40")
    assert gbp["fx_rate"] == format(Decimal("1.1172") / Decimal("0.8338"), "f")
    assert (gbp["fx_rate_date"], gbp["fx_source"]) == ("2026-10-30", "ECB")
    assert sum(Decimal(r["reporting_amount"]) for r in rows) == summarize(statement).reporting.total
