"""run_platform_standin signs with the configured SHOPIFY_CLIENT_SECRET, so it refuses to start where that may be a
real app's secret: with DEBUG off (docs/threat-model.md, "Round six", finding 11)."""

import pytest
from django.core.management import CommandError, call_command

from attribution.management.commands import run_platform_standin


def test_it_refuses_to_start_with_debug_off(settings, monkeypatch):
    settings.DEBUG = False
    settings.SHOPIFY_CLIENT_SECRET = "shpss_a_real_apps_secret"
    served = []
    monkeypatch.setattr(run_platform_standin, "make_server", lambda *args, **kwargs: served.append(args))

    with pytest.raises(CommandError, match="starts only with DEBUG on"):
        call_command("run_platform_standin", "--port", "0")

    assert served == []
