"""Order confirmations that belong to no brand (docs/health.md, "Events of no brand"): stored one by one up
to a tight limit per client address, then counted per host and hour instead, so one sender cannot fill the
log while the account manager still sees which unknown hosts send. Their answer never changes."""

from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from attribution.http import throttles
from health.log.models import OutcomeEvent, UnresolvedHostCount
from health.log.writer import count_unresolved_host

ORDER = "/api/order_confirmation"


@pytest.fixture
def rates(settings):
    settings.API_THROTTLE_RATES = {"order_confirmation": "1000/min", "brandless_events": "3/min"}


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        now = 1_800_000_000.0  # the start of a minute

    monkeypatch.setattr(throttles, "clock", lambda: Clock.now)
    return Clock


def unknown(n, host="shop.unknown{}.example"):
    return {
        "orderAmount": 10,
        "orderId": f"U-{n}",
        "currency": "USD",
        "page_url": f"https://{host.format(n)}/ty",
    }


def test_beyond_the_limit_an_address_s_events_of_no_brand_are_counted_per_host_not_stored(
    api, db, rates, clock
):
    answers = [api.post(ORDER, unknown(n), REMOTE_ADDR="203.0.113.9") for n in range(5)]

    assert [(a.status_code, a.json()["outcome"]) for a in answers] == [(400, "unresolved_domain")] * 5
    assert OutcomeEvent.objects.filter(outcome="unresolved_domain").count() == 3
    counted = UnresolvedHostCount.objects.order_by("host")
    assert [(c.host, c.count) for c in counted] == [
        ("shop.unknown3.example", 1),
        ("shop.unknown4.example", 1),
    ]


def test_the_same_unknown_host_adds_up_within_its_hour(api, db, rates, clock):
    for n in range(7):
        api.post(ORDER, unknown(n, host="spam.example"), REMOTE_ADDR="203.0.113.9")

    [row] = UnresolvedHostCount.objects.all()
    assert (row.host, row.count) == ("spam.example", 4)
    assert row.hour.minute == row.hour.second == 0


def test_the_limit_is_per_address_and_per_window(api, db, rates, clock):
    for n in range(3):
        api.post(ORDER, unknown(n), REMOTE_ADDR="203.0.113.9")

    api.post(ORDER, unknown(10), REMOTE_ADDR="198.51.100.7")  # another sender: stored
    clock.now += 60
    api.post(ORDER, unknown(11), REMOTE_ADDR="203.0.113.9")  # the next minute: stored again

    assert OutcomeEvent.objects.filter(outcome="unresolved_domain").count() == 5
    assert not UnresolvedHostCount.objects.exists()


def test_a_brand_s_events_are_never_counted_instead_of_stored(api, prop, rates, clock):
    for n in range(6):
        body = {**unknown(n), "page_url": f"https://{prop.host}/ty"}
        assert api.post(ORDER, body, REMOTE_ADDR="203.0.113.9").json()["outcome"] == "no_attribution"

    assert OutcomeEvent.objects.filter(brand=prop.brand).count() == 6
    assert not UnresolvedHostCount.objects.exists()


def test_a_body_that_names_no_host_is_counted_under_an_empty_host(api, db, rates, clock):
    for n in range(4):
        api.post(ORDER, {"orderAmount": 10, "orderId": n, "currency": "USD"}, REMOTE_ADDR="203.0.113.9")

    assert [(c.host, c.count) for c in UnresolvedHostCount.objects.all()] == [("", 1)]


def test_the_counts_are_kept_a_month_and_show_in_the_admin(client, db, django_user_model):
    now = timezone.now()
    count_unresolved_host("old.example", at=datetime(2020, 1, 1, 5, 30, tzinfo=UTC))
    count_unresolved_host("fresh.example", at=now)

    call_command("prune_outcomes", "--older-than", "90")

    assert list(UnresolvedHostCount.objects.values_list("host", flat=True)) == ["fresh.example"]
    client.force_login(django_user_model.objects.create_superuser("am", password="x"))
    assert b"fresh.example" in client.get("/admin/health/unresolvedhostcount/").content
