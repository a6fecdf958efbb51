"""The order path reads the rates of a day from memory once it asked for them (attribution.fx.lookup): one
indexed read for a new day, none after; a day whose own publication is missing is read again later."""

from datetime import date, timedelta
from decimal import Decimal

from attribution.fx import lookup
from attribution.models import FxRate

from .conftest import FRIDAY


def test_a_day_is_read_once_then_from_memory(rates, django_assert_num_queries):
    with django_assert_num_queries(1):
        first = lookup.rates_on(FRIDAY)
    with django_assert_num_queries(0):
        again = lookup.rates_on(FRIDAY)

    assert first is again
    assert first.published == FRIDAY
    assert first.rates["USD"] == (Decimal("1.1172"), "ECB")


def test_a_day_without_its_own_publication_is_read_again_after_the_cache_time(
    rates, settings, monkeypatch, django_assert_num_queries
):
    settings.FX_RATES_CACHE_SECONDS = 600
    now = [1000.0]
    monkeypatch.setattr(lookup, "clock", lambda: now[0])
    monday = FRIDAY + timedelta(days=3)

    assert lookup.rates_on(monday).published == FRIDAY
    FxRate.objects.create(day=monday, currency="USD", per_euro=Decimal("1.1300"))  # another process's refresh
    with django_assert_num_queries(0):
        assert lookup.rates_on(monday).published == FRIDAY  # still in memory
    now[0] += 601
    with django_assert_num_queries(1):
        assert lookup.rates_on(monday).published == monday


def test_a_day_before_every_stored_rate_has_none(rates):
    assert lookup.rates_on(date(1990, 1, 1)) == lookup.DayRates(None)
