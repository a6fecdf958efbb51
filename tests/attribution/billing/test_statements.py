"""Monthly statements (docs/billing.md): lines per creator and currency and totals per currency, checked
against figures computed here from the raw commissions; payment; the CSV export."""

import csv
import io
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

import pytest

from attribution.billing.export import csv_lines
from attribution.billing.statements import statements_of, summarize, totals_of
from attribution.billing.writers import lock_due_commissions, pay_statement
from attribution.models import Adjustment, Commission, Statement
from tests import factories
from tests.attribution.billed import (
    DEC_02,
    NOV_03,
    NOV_12,
    NOVEMBER,
    OCT_10,
    OCT_20,
    OCTOBER,
    cancel,
    fresh,
    pending,
    update,
)
from tests.attribution.billing.conftest import RAW
from tests.attribution.keyed import caller_of

State = Commission.State


def expected_lines(rows) -> dict[tuple[str, str], tuple[int, Decimal]]:
    """(creator, currency) -> (commissions, total), computed from raw rows without the code under test."""
    lines = defaultdict(lambda: (0, Decimal(0)))
    for _, name, currency, amount, _, _ in rows:
        count, total = lines[(name, currency)]
        lines[(name, currency)] = (count + 1, total + Decimal(amount))
    return dict(lines)


def shown_lines(summary) -> dict[tuple[str, str], tuple[int, Decimal]]:
    return {(line.creator, line.currency): (line.commissions, line.total) for line in summary.lines}


def shown_totals(summary) -> dict[str, Decimal]:
    return {total.currency: total.total for total in summary.totals}


def october_rows():
    return [row for row in RAW if not row[5] and row[4].month == 10]


def test_a_statement_bills_the_live_commissions_locked_in_its_month_per_creator_and_currency(brand, october):
    statement = Statement.objects.get(brand=brand, month=OCTOBER)

    summary = summarize(statement)

    assert shown_lines(summary) == expected_lines(october_rows())
    assert shown_lines(summary) == {
        ("Ana", "EUR"): (1, Decimal("7.10")),
        ("Ana", "JPY"): (1, Decimal("1500")),
        ("Ana", "USD"): (2, Decimal("15.55")),
        ("Bo", "KWD"): (1, Decimal("1.234")),
        ("Bo", "USD"): (2, Decimal("20.45")),
    }
    assert [(line.creator, line.currency) for line in summary.lines] == sorted(shown_lines(summary))


def test_totals_are_per_currency_and_never_summed_across_currencies(brand, october):
    summary = summarize(Statement.objects.get(brand=brand, month=OCTOBER))

    expected = defaultdict(Decimal)
    for _, _, currency, amount, _, _ in october_rows():
        expected[currency] += Decimal(amount)
    assert shown_totals(summary) == dict(expected)
    assert [total.currency for total in summary.totals] == ["EUR", "JPY", "KWD", "USD"]
    assert str(shown_totals(summary)["USD"]) == "36.00"
    assert str(shown_totals(summary)["JPY"]) == "1500"  # minor units of each currency
    assert str(shown_totals(summary)["KWD"]) == "1.234"


def test_test_commissions_and_other_brands_commissions_are_on_no_statement_of_the_brand(brand, october):
    assert {c.statement_id for order_id, c in october.items() if order_id.startswith("T-")} == {None}
    assert {fresh(october["T-1"]).state, fresh(october["T-2"]).state} == {State.PENDING}
    billed = {c.order.order_id for c in Commission.objects.filter(statement__brand=brand)}
    assert billed == {row[0] for row in RAW if not row[5]}
    assert Statement.objects.filter(brand=brand).count() == 2


def test_the_next_month_bills_what_locked_in_it(brand, october):
    november = Statement.objects.get(brand=brand, month=NOVEMBER)

    assert shown_lines(summarize(november)) == {("Bo", "USD"): (1, Decimal("99.00"))}


def test_a_cancel_before_payment_drops_a_commission_and_an_update_changes_its_line(brand, october):
    key = caller_of(brand, "alice").key

    assert cancel(key, "A-1", at=OCT_20).outcome == "tracked"
    assert update(key, "B-2", "150", at=OCT_20).outcome == "tracked"  # 10 % of 150

    summary = summarize(Statement.objects.get(brand=brand, month=OCTOBER))
    assert shown_lines(summary)[("Ana", "USD")] == (1, Decimal("5.55"))
    assert shown_lines(summary)[("Bo", "USD")] == (2, Decimal("15.45"))
    assert not Adjustment.objects.exists()  # nothing was paid: nothing to adjust


def test_the_list_totals_match_each_statements_own_summary(brand, october):
    statements = statements_of(brand)

    totals = totals_of(statements, {brand.pk: brand.reporting_currency_now()})

    assert [s.month for s in statements] == [NOVEMBER, OCTOBER]
    for statement in statements:
        own = summarize(statement)
        assert [(t.currency, t.commissions, t.total) for t in totals[statement.pk].figures] == [
            (t.currency, t.commissions, t.total) for t in own.totals
        ]
        assert totals[statement.pk].reporting.total == own.reporting.total
        assert totals[statement.pk].commissions == sum(t.commissions for t in own.totals)


def test_paying_a_statement_pays_its_locked_commissions_and_stamps_it(brand, october, creators):
    key = caller_of(brand, "alice").key
    cancel(key, "A-1", at=OCT_20)
    statement = Statement.objects.get(brand=brand, month=OCTOBER)
    manager = factories.UserFactory(is_staff=True)

    payment = pay_statement(statement_id=statement.pk, at=NOV_03, user=manager)

    assert (payment.done, payment.paid) == (True, len(october_rows()) - 1)
    paid = Statement.objects.get(pk=statement.pk)
    assert (paid.state, paid.paid_at, paid.paid_by) == (Statement.State.PAID, NOV_03, manager)
    for order_id, _, _, amount, _, _ in october_rows():
        after = fresh(october[order_id])
        if order_id == "A-1":
            assert (after.state, after.paid_at, after.paid_amount) == (State.CANCELLED, None, None)
        else:
            assert (after.state, after.paid_at, after.paid_amount) == (State.PAID, NOV_03, Decimal(amount))
    assert fresh(october["B-4"]).state == State.LOCKED  # November's, not paid with October


def test_a_statement_is_paid_only_once_its_month_is_over(brand, october):
    statement = Statement.objects.get(brand=brand, month=OCTOBER)

    payment = pay_statement(
        statement_id=statement.pk, at=NOV_03.replace(day=1, hour=0) - timedelta(microseconds=1)
    )

    assert payment.refused == "October 2026 is not over yet: its statement can be paid from 2026-11-01."
    assert Statement.objects.get(pk=statement.pk).state == Statement.State.OPEN
    assert not Commission.objects.filter(state=State.PAID).exists()
    assert pay_statement(statement_id=statement.pk, at=NOV_03.replace(day=1, hour=0)).done


def test_a_paid_statement_is_not_paid_again(brand, october):
    statement = Statement.objects.get(brand=brand, month=OCTOBER)
    pay_statement(statement_id=statement.pk, at=NOV_03)

    again = pay_statement(statement_id=statement.pk, at=NOV_12)

    assert (again.done, again.paid, again.refused) == (
        False,
        0,
        "October 2026 was already paid on 2026-11-03.",
    )
    assert set(Commission.objects.filter(statement=statement).values_list("paid_at", flat=True)) == {NOV_03}


def test_a_payment_that_fails_half_way_pays_nothing(brand, october, monkeypatch):
    statement = Statement.objects.get(brand=brand, month=OCTOBER)
    real, moves = Commission.move_to, []

    def fail_on_the_third(commission, state, **kwargs):
        moves.append(commission.pk)
        if len(moves) == 3:
            raise RuntimeError("database went away")
        real(commission, state, **kwargs)

    monkeypatch.setattr(Commission, "move_to", fail_on_the_third)

    with pytest.raises(RuntimeError):
        pay_statement(statement_id=statement.pk, at=NOV_03)

    assert Statement.objects.get(pk=statement.pk).state == Statement.State.OPEN
    assert set(Commission.objects.filter(statement=statement).values_list("state", "paid_at")) == {
        (State.LOCKED, None)
    }


def test_a_paid_statements_figures_never_move(brand, october):
    key = caller_of(brand, "alice").key
    statement = Statement.objects.get(brand=brand, month=OCTOBER)
    pay_statement(statement_id=statement.pk, at=NOV_03)
    before = summarize(statement)

    update(key, "A-1", "20", at=NOV_12)  # 10.00 -> 2.00 after payment
    cancel(key, "B-1", at=NOV_12)

    after = summarize(Statement.objects.get(pk=statement.pk))
    assert (shown_lines(after), shown_totals(after)) == (shown_lines(before), shown_totals(before))
    assert fresh(october["A-1"]).amount == Decimal("2.00")
    assert fresh(october["B-1"]).state == State.CANCELLED
    assert shown_lines(summarize(Statement.objects.get(brand=brand, month=NOVEMBER))) == {
        ("Ana", "USD"): (0, Decimal("-8.00")),
        ("Bo", "USD"): (1, Decimal("98.55")),  # 99.00 locked in November, 0.45 clawed back
    }


def rows_of(statement) -> list[dict]:
    text = "".join(csv_lines(statement))
    assert text.startswith("\ufeff"), "the byte order mark Excel needs to read UTF-8"
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_the_csv_has_every_commission_and_adjustment_behind_the_statement(brand, october):
    key = caller_of(brand, "alice").key
    pay_statement(statement_id=Statement.objects.get(brand=brand, month=OCTOBER).pk, at=NOV_03)
    cancel(key, "A-2", at=NOV_12, request_id="req-0042")
    lock_due_commissions(now=DEC_02)
    november = Statement.objects.get(brand=brand, month=NOVEMBER)

    rows = rows_of(november)

    assert [(r["kind"], r["order_id"], r["creator"], r["currency"], r["amount"]) for r in rows] == [
        ("commission", "B-4", "Bo", "USD", "99.00"),
        ("adjustment", "A-2", "Ana", "USD", "-5.55"),
    ]
    adjustment = rows[1]
    assert (adjustment["adjustment_reason"], adjustment["paid_on_statement"], adjustment["request_id"]) == (
        "cancel",
        "2026-10",
        "req-0042",
    )
    assert (adjustment["commission_state"], adjustment["adjusted_at"]) == ("cancelled", NOV_12.isoformat())
    assert {r["statement_month"] for r in rows} == {"2026-11"}
    october_rows_shown = rows_of(Statement.objects.get(brand=brand, month=OCTOBER))
    by_currency = defaultdict(Decimal)
    for row in october_rows_shown:
        by_currency[row["currency"]] += Decimal(row["amount"])
    assert dict(by_currency) == shown_totals(summarize(Statement.objects.get(brand=brand, month=OCTOBER)))


def test_the_csv_keeps_a_spreadsheet_from_running_a_name_as_a_formula(brand):
    creator = factories.CreatorFactory(brand=brand, name='=HYPERLINK("http://evil")')
    pending(brand, "=1+1", creator=creator, amount="3.00")
    lock_due_commissions(now=OCT_10)

    (row,) = rows_of(Statement.objects.get(brand=brand))

    assert (row["order_id"], row["creator"], row["amount"]) == (
        "'=1+1",
        '\'=HYPERLINK("http://evil")',
        "3.00",
    )


@pytest.fixture
def manager(db):
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)
