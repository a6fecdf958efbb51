"""The demo world holds currency rates for its own days, marked "demo", so a fresh start opens no "Currency
rates out of date"; and a paid statement of last month with commissions in three currencies."""

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.fx import loading
from attribution.management.demo.rates import keep_demo_rates
from attribution.models import Commission, FxRate, Statement
from brands.models import Brand
from health.alerts.events.rules import ServiceFacts
from health.alerts.fx.rules import check

pytestmark = pytest.mark.django_db


def test_the_last_stored_rates_are_carried_to_each_working_day_since_as_demo_rates():
    FxRate.objects.all().delete()
    FxRate.objects.bulk_create(
        [
            FxRate(day=date(2026, 10, 30), currency="USD", per_euro=Decimal("1.1612")),
            FxRate(day=date(2026, 10, 30), currency="GBP", per_euro=Decimal("0.8731")),
        ]
    )

    added = keep_demo_rates(today=date(2026, 11, 4))  # Friday 30 October to Wednesday 4 November

    assert added == 6  # Monday 2 to Wednesday 4, two currencies; no weekend rate
    demo = FxRate.objects.filter(source="demo").order_by("day", "currency")
    assert [(r.day.isoformat(), r.currency, r.per_euro) for r in demo][:2] == [
        ("2026-11-02", "GBP", Decimal("0.8731")),
        ("2026-11-02", "USD", Decimal("1.1612")),
    ]
    assert FxRate.objects.get(day=date(2026, 10, 30), currency="USD").source == "ECB"
    assert keep_demo_rates(today=date(2026, 11, 4)) == 0  # again: nothing to add


def test_the_demo_holds_a_paid_statement_of_last_month_in_three_currencies(seed):
    loading.load_bundled(since=date(2026, 9, 1))  # the migration's, in case a transactional test emptied it

    world = seed()
    seed()  # again: the same statement, nothing added

    paid = world["fx"]["paid_statement"]
    statement = Statement.objects.get(pk=paid["id"])
    now = timezone.now()
    assert statement.state == Statement.State.PAID
    assert statement.brand == Brand.objects.get(name=world["brands"]["main"]["name"])
    assert statement.month == (now.replace(day=1) - timedelta(days=1)).date().replace(day=1)
    commissions = Commission.objects.filter(statement=statement)
    assert sorted(commissions.values_list("currency", flat=True)) == ["EUR", "GBP", "USD"]
    assert set(commissions.values_list("state", flat=True)) == {"paid"}
    assert all(c.reporting_currency == "USD" and c.reporting_amount > 0 for c in commissions)
    assert Statement.objects.filter(state=Statement.State.PAID).count() == 1


def test_a_fresh_demo_opens_no_stale_rates_incident(seed):
    seed()

    newest = FxRate.objects.order_by("-day").values_list("day", flat=True).first()
    facts = ServiceFacts(newest_rate_day=newest)
    assert check(facts, datetime.now(tz=timezone.get_current_timezone()), stale_days=4) is None
