"""`manage.py seed_alert_history`: a demo brand's week of backdated orders, once, and an address for its users."""

import pytest
from django.core.management import CommandError, call_command

from health.log.models import HourlyOutcomeCount, OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db


def test_it_writes_a_week_of_history_once_and_gives_the_users_an_address(settings, capsys):
    settings.DEBUG = True
    brand = factories.BrandFactory(name="Acme Demo")
    user = factories.MembershipFactory(brand=brand, user__username="acme-demo", user__email="").user

    call_command("seed_alert_history", "--per-hour", "2")
    first = OutcomeEvent.objects.filter(brand=brand).count()
    call_command("seed_alert_history", "--per-hour", "2")

    assert 2 * 24 * 7 - 2 <= first <= 2 * 24 * 7
    assert OutcomeEvent.objects.filter(brand=brand).count() == first
    assert HourlyOutcomeCount.objects.filter(brand=brand).count() >= 24 * 7 - 1
    user.refresh_from_db()
    assert user.email == "acme-demo@example.com"
    assert "gave 1 user(s) an email address: acme-demo@example.com" in capsys.readouterr().out


def test_it_refuses_without_debug_or_an_unknown_brand(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is false"):
        call_command("seed_alert_history")
    settings.DEBUG = True
    with pytest.raises(CommandError, match="No brand named"):
        call_command("seed_alert_history", "--brand", "Nope")
