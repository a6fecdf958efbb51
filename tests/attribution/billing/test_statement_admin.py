"""Statements in the admin (docs/billing.md): who gets in, the totals in each brand's reporting currency and
per currency, a statement's page and CSV, read-only statements and adjustments, the "Mark paid" action and
who is offered it."""

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db.models import RestrictedError
from django.urls import reverse
from django.utils import timezone

from attribution.billing.writers import lock_due_commissions, month_of, pay_statement
from attribution.models import Adjustment, Commission, Statement
from tests import factories
from tests.attribution.billed import DEC_02, NOV_03, OCTOBER, cancel, fresh, pending
from tests.attribution.fx.conftest import rates  # noqa: F401  (the fixture)
from tests.attribution.fx.test_statements_in_reporting import billed, statement_with_two_currencies
from tests.attribution.keyed import caller_of

State = Commission.State


CHANGELIST = reverse("admin:attribution_statement_changelist")


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

    with django_assert_max_num_queries(15):
        page = client.get(CHANGELIST)

    assert page.status_code == 200
    text = page.content.decode()
    assert "</summary>2.50 EUR<br>10.00 USD</details>" in text
    assert "nothing due" in text


@pytest.fixture
def two_brands(rates, brand):  # noqa: F811
    """Acme's October in USD (48.38 USD, and 30.00 AED with no rate) and a brand reading euros."""
    ours = statement_with_two_currencies(brand)
    billed(
        brand,
        ours,
        creator=factories.CreatorFactory(brand=brand, name="Cy"),
        currency="AED",
        amount=Decimal("30"),
    )
    euro_brand = factories.BrandFactory(name="Euro", reporting_currency="EUR")
    return ours, statement_with_two_currencies(euro_brand)  # 43.31 EUR


def test_the_changelist_totals_each_statement_in_its_brands_reporting_currency(
    client, manager, two_brands, django_assert_max_num_queries
):
    ours, theirs = two_brands
    client.force_login(manager)
    for n in range(9):  # more statements and brands: no more queries
        statement_with_two_currencies(factories.BrandFactory(name=f"Brand {n}", reporting_currency="GBP"))

    with django_assert_max_num_queries(15):
        text = client.get(CHANGELIST).content.decode()

    assert (
        "<summary><strong>48.38 USD</strong></summary>30.00 AED<br>25.05 EUR<br>10.00 GBP<br>7.00 USD</details>"
        '<p class="not-converted">Not in this total: 30.00 AED (1 item: No ECB reference rate for AED' in text
    )
    assert "<summary><strong>43.31 EUR</strong></summary>25.05 EUR<br>10.00 GBP<br>7.00 USD</details>" in text
    assert text.count(" GBP</strong></summary>") == 9


def test_the_change_page_totals_in_the_reporting_currency_with_the_rates_and_what_is_left_out(
    client, manager, two_brands
):
    ours, _ = two_brands
    client.force_login(manager)

    text = client.get(reverse("admin:attribution_statement_change", args=[ours.pk])).content.decode()

    assert '<strong id="statement-reporting-total">48.38 USD</strong>' in text
    assert "rates published 2026-10-30" in text
    assert "Not in this total: 30.00 AED (1 item: No ECB reference rate for AED" in text
    assert "<th>total</th><th>in USD</th>" in text
    assert "<td><strong>25.05</strong></td><td>27.98 USD</td></tr>" in text  # Ana's EUR line
    assert "<td><strong>30.00</strong></td><td>not converted</td></tr>" in text  # Cy's AED line


def test_the_change_page_shows_lines_totals_adjustments_and_links_to_what_is_behind(
    client, manager, brand, past_statement
):
    client.force_login(manager)

    page = client.get(reverse("admin:attribution_statement_change", args=[past_statement.pk]))

    text = page.content.decode()
    assert page.status_code == 200
    assert (
        "<tr><td>Ana</td><td>EUR</td><td>1</td><td>2.50</td><td>0</td><td>0.00</td><td><strong>2.50</strong></td>"
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
