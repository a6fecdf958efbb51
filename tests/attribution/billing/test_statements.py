"""Monthly statements (docs/billing.md): lines per creator and currency and totals per
currency, checked against figures computed here from the raw commissions; payment; the CSV export; the
admin pages and the "Mark paid" action."""

import csv
import io
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db.models import RestrictedError
from django.urls import reverse
from django.utils import timezone

from attribution.billing.export import csv_lines
from attribution.billing.statements import statements_of, summarize, totals_of
from attribution.billing.writers import lock_due_commissions, month_of, pay_statement
from attribution.models import Adjustment, Commission, Statement
from tests import factories
from tests.attribution.billed import DEC_02, NOV_03, NOV_12, OCT_10, OCT_20, cancel, fresh, pending, update
from tests.attribution.keyed import caller_of

State = Commission.State
OCTOBER, NOVEMBER = date(2026, 10, 1), date(2026, 11, 1)

# (order id, creator, currency, commission amount, when its return window closes, test?)
RAW = [
    ("A-1", "Ana", "USD", "10.00", OCT_10, False),
    ("A-2", "Ana", "USD", "5.55", OCT_20, False),
    ("A-3", "Ana", "EUR", "7.10", OCT_10, False),
    ("A-4", "Ana", "JPY", "1500", OCT_20, False),
    ("B-1", "Bo", "USD", "0.45", OCT_10, False),
    ("B-2", "Bo", "USD", "20.00", OCT_20, False),
    ("B-3", "Bo", "KWD", "1.234", OCT_20, False),
    ("B-4", "Bo", "USD", "99.00", NOV_03, False),  # locks in November
    ("T-1", "Ana", "USD", "50.00", OCT_10, True),  # a test order: never billed
    ("T-2", "Bo", "EUR", "60.00", OCT_20, True),
]


@pytest.fixture
def creators(brand):
    return {name: factories.CreatorFactory(brand=brand, name=name) for name in ("Ana", "Bo")}


@pytest.fixture
def october(brand, creators, other_brand):
    """RAW's commissions, plus one of another brand, locked by runs on October 10 and 20 and November 3."""
    made = {
        order_id: pending(
            brand,
            order_id,
            creator=creators[name],
            currency=currency,
            amount=amount,
            closes_at=closes,
            is_test=test,
        )
        for order_id, name, currency, amount, closes, test in RAW
    }
    pending(other_brand, "G-1", creator=factories.CreatorFactory(brand=other_brand), amount="1000.00")
    for now in (OCT_10, OCT_20, NOV_03):
        lock_due_commissions(now=now)
    return made


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


# --- what a statement bills ---------------------------------------------------------------------------------


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

    totals = totals_of(statements)

    assert [s.month for s in statements] == [NOVEMBER, OCTOBER]
    for statement in statements:
        assert [(t.currency, t.commissions, t.total) for t in totals[statement.pk]] == [
            (t.currency, t.commissions, t.total) for t in summarize(statement).totals
        ]


# --- payment ------------------------------------------------------------------------------------------------


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


# --- CSV export ---------------------------------------------------------------------------------------------


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


# --- admin --------------------------------------------------------------------------------------------------

CHANGELIST = reverse("admin:attribution_statement_changelist")


def last_month() -> date:
    return month_of(timezone.now()).replace(day=1) - timedelta(days=1)


@pytest.fixture
def past_statement(brand, creators):
    """A statement of last month (by the real clock: the admin action pays at the time it runs)."""
    month_start = month_of(timezone.now().replace(day=1) - timedelta(days=1))
    locks_at = timezone.now().replace(day=1) - timedelta(days=2)
    made = [
        pending(brand, "A-1", creator=creators["Ana"], amount="10.00", closes_at=locks_at),
        pending(brand, "A-2", creator=creators["Ana"], amount="2.50", currency="EUR", closes_at=locks_at),
    ]
    lock_due_commissions(now=locks_at)
    statement = Statement.objects.get(brand=brand, month=month_start)
    assert {c.statement for c in map(fresh, made)} == {statement}
    return statement


@pytest.fixture
def manager(db):
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)


@pytest.fixture
def viewer(db):
    """An account manager who may look at statements but not pay them."""
    user = factories.UserFactory(username="viewer", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_statement", "view_commission"]))
    return user


def test_brand_users_and_anonymous_do_not_get_into_the_statement_admin(client, brand, past_statement):
    assert client.get(CHANGELIST).status_code == 302
    client.force_login(factories.MembershipFactory(brand=brand).user)
    assert client.get(CHANGELIST).status_code == 302
    export = reverse("admin:attribution_statement_export", args=[past_statement.pk])
    assert client.get(export).status_code == 302


def test_the_changelist_shows_each_statements_totals_per_currency(
    client, manager, past_statement, other_brand, django_assert_max_num_queries
):
    Statement.objects.create(brand=other_brand, month=past_statement.month)
    client.force_login(manager)

    with django_assert_max_num_queries(12):
        page = client.get(CHANGELIST)

    assert page.status_code == 200
    text = page.content.decode()
    assert "2.50 EUR<br>10.00 USD" in text
    assert "nothing due" in text


def test_the_change_page_shows_lines_totals_adjustments_and_links_to_what_is_behind(
    client, manager, brand, past_statement
):
    client.force_login(manager)

    page = client.get(reverse("admin:attribution_statement_change", args=[past_statement.pk]))

    text = page.content.decode()
    assert page.status_code == 200
    assert (
        "<tr><td>Ana</td><td>EUR</td><td>1</td><td>2.50</td><td>0</td><td>0.00</td><td><strong>2.50</strong></td></tr>"
        in text
    )
    assert (
        "<tr><td>USD</td><td>1</td><td>10.00</td><td>0</td><td>0.00</td><td><strong>10.00</strong></td></tr>"
        in text
    )
    commissions = client.get(
        CHANGELIST.replace("statement", "commission"), {"statement__id__exact": past_statement.pk}
    )
    assert commissions.status_code == 200
    assert sorted(c.order.order_id for c in commissions.context["cl"].result_list) == ["A-1", "A-2"]


def test_the_admin_exports_a_statement_as_csv(client, manager, past_statement):
    client.force_login(manager)

    response = client.get(reverse("admin:attribution_statement_export", args=[past_statement.pk]))

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="statement-acme-{past_statement.month:%Y-%m}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert sorted((r["order_id"], r["amount"], r["currency"]) for r in rows) == [
        ("A-1", "10.00", "USD"),
        ("A-2", "2.50", "EUR"),
    ]
    assert client.get(reverse("admin:attribution_statement_export", args=[999999])).status_code == 404


def test_statements_and_adjustments_are_read_only_in_the_admin(client, manager, past_statement):
    client.force_login(manager)

    assert client.get(reverse("admin:attribution_statement_add")).status_code == 403
    assert (
        client.post(reverse("admin:attribution_statement_delete", args=[past_statement.pk])).status_code
        == 403
    )
    assert client.get(reverse("admin:attribution_adjustment_add")).status_code == 403


def test_the_mark_paid_action_pays_the_selected_statement(client, manager, past_statement):
    client.force_login(manager)

    response = client.post(
        CHANGELIST, {"action": "mark_paid", "_selected_action": [past_statement.pk]}, follow=True
    )

    paid = Statement.objects.get(pk=past_statement.pk)
    assert (paid.state, paid.paid_by) == (Statement.State.PAID, manager)
    assert timezone.now() - paid.paid_at < timedelta(minutes=5)
    assert set(Commission.objects.filter(statement=paid).values_list("state", "paid_at")) == {
        (State.PAID, paid.paid_at)
    }
    text = response.content.decode()
    assert f"Acme {paid.month:%Y-%m}: paid; 2 commissions moved to paid." in text


def test_the_action_refuses_a_month_that_is_not_over(client, manager, brand):
    current = Statement.objects.create(brand=brand, month=month_of(timezone.now()))
    client.force_login(manager)

    response = client.post(CHANGELIST, {"action": "mark_paid", "_selected_action": [current.pk]}, follow=True)

    assert Statement.objects.get(pk=current.pk).state == Statement.State.OPEN
    assert "not paid" in response.content.decode()
    assert "is not over yet" in response.content.decode()


def test_only_a_user_with_the_pay_permission_is_offered_the_action(client, viewer, past_statement):
    client.force_login(viewer)

    page = client.get(CHANGELIST)
    client.post(CHANGELIST, {"action": "mark_paid", "_selected_action": [past_statement.pk]})

    assert page.status_code == 200
    assert "mark_paid" not in page.content.decode()
    assert Statement.objects.get(pk=past_statement.pk).state == Statement.State.OPEN
    viewer.user_permissions.add(Permission.objects.get(codename="pay_statement"))
    viewer = type(viewer).objects.get(pk=viewer.pk)  # permissions are cached on the user object
    client.force_login(viewer)
    assert "mark_paid" in client.get(CHANGELIST).content.decode()


def test_a_statement_with_commissions_or_adjustments_cannot_be_deleted(brand, october):
    key = caller_of(brand, "alice").key
    october_statement = Statement.objects.get(brand=brand, month=OCTOBER)
    pay_statement(statement_id=october_statement.pk, at=NOV_03)
    cancel(key, "A-1", at=DEC_02)  # December's statement holds only this clawback
    december = Statement.objects.get(brand=brand, month=date(2026, 12, 1))

    for statement in (october_statement, december):
        with pytest.raises(RestrictedError):
            statement.delete()

    assert Statement.objects.filter(brand=brand).count() == 3
    assert Adjustment.objects.get().statement == december
