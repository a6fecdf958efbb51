"""The account managers' incident when the currency rates stop arriving (health.alerts.fx.rules): opened when
the newest stored rate is more than FX_RATES_STALE_DAYS old, resolved once a newer one is stored."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from attribution.models import FxRate
from health.alerts import evaluation
from health.alerts.descriptions import describe
from health.alerts.models import Incident

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 9, 10, 0, tzinfo=UTC)


@pytest.fixture
def rates_until(rates_as_stored):
    def store_until(day):
        FxRate.objects.filter(day__gt=day).delete()
        FxRate.objects.get_or_create(day=day, currency="USD", defaults={"per_euro": Decimal("1.15")})

    return store_until


def test_rates_four_days_old_open_nothing(rates_until, settings):
    settings.FX_RATES_STALE_DAYS = 4
    rates_until(date(2026, 11, 5))

    result = evaluation.evaluate(now=NOW)

    assert not [i for i in result.opened if i.rule == Incident.Rule.FX_STALE]


def test_older_rates_open_one_incident_for_the_account_managers_and_a_refresh_resolves_it(
    rates_until, settings
):
    settings.FX_RATES_STALE_DAYS = 4
    rates_until(date(2026, 11, 4))

    evaluation.evaluate(now=NOW)
    evaluation.evaluate(now=NOW)

    incident = Incident.objects.get(rule=Incident.Rule.FX_STALE)
    assert incident.brand is None and incident.is_open
    said = describe(incident)
    assert said.title == "Currency rates out of date"
    assert "of 2026-11-04, 5 days before" in said.summary
    assert "load_fx_rates" in said.fix

    FxRate.objects.create(day=date(2026, 11, 6), currency="USD", per_euro=Decimal("1.16"))
    evaluation.evaluate(now=NOW)

    incident.refresh_from_db()
    assert not incident.is_open


def test_an_empty_rates_table_opens_it_too(rates_as_stored):
    FxRate.objects.all().delete()

    evaluation.evaluate(now=NOW)

    incident = Incident.objects.get(rule=Incident.Rule.FX_STALE)
    assert "No currency rate is stored" in describe(incident).summary
