"""/health/alerts/: open and recent incidents, the brand's rules, its webhook channels with a test button
and delivery log, and one incident's page. alice (Acme) reads and changes Acme's, bob (Globex) gets a 404
for them, an anonymous visitor is sent to sign in."""

import re
from datetime import timedelta
from html import unescape

import pytest

from health.alerts.evaluation import evaluate
from health.alerts.models import AlertRuleSet, Channel, Incident
from health.alerts.notify import notifications, outbound
from health.alerts.notify.webhooks import new_secret
from tests.health.alerting import T0

pytestmark = pytest.mark.django_db

PAGE = "/health/alerts/"
HOUR = timedelta(hours=1)


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


@pytest.fixture
def incidents(busy):
    """Acme's silence, opened and resolved once, then opened again."""
    from tests.health.alerting import log

    first = evaluate(now=T0 + 2 * HOUR).opened[0]
    log(busy, at=T0 + 3 * HOUR)
    evaluate(now=T0 + 3 * HOUR + timedelta(minutes=1))
    second = evaluate(now=T0 + 6 * HOUR).opened[0]
    return first, second


def test_alice_sees_open_and_recent_incidents_the_rules_and_channels(alice_client, incidents):
    response = alice_client.get(PAGE)

    assert response.status_code == 200
    text = text_of(response)
    assert "Open incidents" in text and text.count("Order confirmations stopped") == 2
    assert "No live order confirmation for 3 h when it opened" in text  # the open one
    assert "Save rules" in text and "Add channel" in text


def test_bob_and_anonymous_cannot_see_acmes_alerts(client, bob, incidents, brand):
    assert client.get(PAGE).status_code == 302
    client.force_login(bob)
    assert client.get(PAGE, {"brand": brand.pk}).status_code == 404
    assert client.get(f"/health/alerts/incidents/{incidents[0].pk}/").status_code == 404
    own = client.get(PAGE)
    assert own.status_code == 200 and "Order confirmations stopped" not in text_of(own)


def test_the_incident_page_shows_the_fix_the_events_and_the_notifications(alice_client, incidents, brand):
    response = alice_client.get(f"/health/alerts/incidents/{incidents[0].pk}/")

    text = text_of(response)
    assert "Resolved" in text and "confirmation snippet" in text
    assert "Last order before it 2026-03-04 14:00:00 UTC" in text
    assert (
        f"/health/events/?brand={brand.pk}&amp;endpoint=order_confirmation&amp;ns=live"
        in response.content.decode()
    )
    assert "Incident opened" in text and "Incident resolved" in text


def test_service_side_incidents_have_no_brand_page(client, staff, db):
    incident = Incident.objects.create(rule="service_side", opened_at=T0, counts={})
    client.force_login(staff)

    assert client.get(f"/health/alerts/incidents/{incident.pk}/").status_code == 404


def test_alice_changes_acmes_rules(alice_client, brand):
    form = {
        "silence_enabled": "on",
        "silence_floor_minutes": "30",
        "silence_usual_orders": "8",
        "spike_percent": "35",
        "spike_min_events": "10",
        "new_problem_enabled": "on",
        "new_problem_count": "4",
        "capture_enabled": "on",
        "capture_drop_points": "5",
        "capture_normal_percent": "90",
    }
    response = alice_client.post(PAGE, form)

    assert response.status_code == 302
    rules = AlertRuleSet.objects.get(brand=brand)
    assert (rules.silence_floor_minutes, rules.silence_usual_orders, rules.spike_percent) == (30, 8, 35)
    assert not rules.spike_enabled and not rules.email_enabled and rules.new_problem_count == 4
    assert (rules.capture_enabled, rules.capture_drop_points, rules.capture_normal_percent) == (True, 5, 90)
    assert "Alert rules saved" in text_of(alice_client.get(PAGE))


def test_a_floor_below_five_minutes_is_refused_and_nothing_is_saved(alice_client, brand):
    response = alice_client.post(
        PAGE,
        {
            "silence_floor_minutes": "1",
            "silence_usual_orders": "5",
            "spike_percent": "20",
            "spike_min_events": "5",
            "new_problem_count": "3",
            "capture_drop_points": "10",
            "capture_normal_percent": "95",
        },
    )

    assert response.status_code == 400
    assert "Minutes: Ensure this value is greater than or equal to 5." in text_of(response)
    assert not AlertRuleSet.objects.exists()


def test_bob_cannot_change_acmes_rules(client, bob, brand):
    client.force_login(bob)

    response = client.post(f"{PAGE}?brand={brand.pk}", {"silence_floor_minutes": "5"})

    assert response.status_code == 404 and not AlertRuleSet.objects.exists()


def test_alice_adds_a_channel_with_a_signing_secret_and_slack_is_recognised(alice_client, brand):
    alice_client.post(
        "/health/alerts/channels/", {"url": "https://hooks.acme.example/attribution", "format": "auto"}
    )
    alice_client.post(
        "/health/alerts/channels/", {"url": "https://hooks.slack.com/services/T/B/x", "format": "auto"}
    )

    standard, slack = Channel.objects.filter(brand=brand).order_by("id")
    assert standard.format == "standard" and standard.secret.startswith("whsec_")
    assert slack.format == "slack"
    assert standard.secret in alice_client.get(PAGE).content.decode()


def test_a_channel_to_an_internal_address_is_refused(alice_client, settings):
    settings.WEBHOOKS_ALLOW_LOCAL = False

    response = alice_client.post(
        "/health/alerts/channels/", {"url": "https://192.168.0.10/hook", "format": "auto"}
    )

    assert response.status_code == 400
    assert "public internet addresses" in text_of(response) and not Channel.objects.exists()


def test_alice_sends_a_test_notification_and_sees_it_in_the_delivery_log(alice_client, brand, receiver):
    hook = Channel.objects.create(brand=brand, url=receiver.url, secret=new_secret())

    response = alice_client.post(f"/health/alerts/channels/{hook.pk}/test/", follow=True)

    assert "Test notification delivered (HTTP 200)." in text_of(response)
    assert len(receiver.requests) == 1
    assert "delivered · HTTP 200" in text_of(response)


def test_a_test_notification_to_a_dead_receiver_says_why(alice_client, brand, closed_port_url):
    hook = Channel.objects.create(brand=brand, url=closed_port_url, secret=new_secret())

    response = alice_client.post(f"/health/alerts/channels/{hook.pk}/test/", follow=True)

    assert "Test notification not delivered (no answer: connection failed" in text_of(response)
    assert "It will be retried." in text_of(response)


def test_bob_cannot_test_or_remove_acmes_channel(client, bob, brand, receiver):
    hook = Channel.objects.create(brand=brand, url=receiver.url, secret=new_secret())
    client.force_login(bob)

    assert client.post(f"/health/alerts/channels/{hook.pk}/test/").status_code == 404
    assert client.post(f"/health/alerts/channels/{hook.pk}/remove/").status_code == 404
    assert receiver.requests == [] and Channel.objects.get().is_active


def test_the_page_takes_a_fixed_number_of_queries_however_many_channels(
    alice_client, brand, incidents, monkeypatch, django_assert_max_num_queries
):
    monkeypatch.setattr(outbound, "post", lambda *a, **k: outbound.Response(200, "ok", 3))
    for i in range(5):
        hook = Channel.objects.create(
            brand=brand, url=f"https://hooks{i}.acme.example/x", secret=new_secret()
        )
        notifications.send_test(hook)
        notifications.send_test(hook)

    with django_assert_max_num_queries(12):
        response = alice_client.get(PAGE)

    html = response.content.decode()
    assert html.count('class="card channel"') == 5 and html.count("delivered · HTTP 200") == 10


def test_alice_removes_a_channel(alice_client, brand):
    hook = Channel.objects.create(brand=brand, url="https://hooks.acme.example/x", secret=new_secret())

    alice_client.post(f"/health/alerts/channels/{hook.pk}/remove/")

    hook.refresh_from_db()
    assert not hook.is_active
    page = alice_client.get(PAGE)
    assert "removed" in text_of(page)
    assert '<code class="channel-url">https://hooks.acme.example/x' not in page.content.decode()


def test_the_page_says_when_the_rules_are_not_being_checked(alice_client, brand):
    assert "The rules are not being checked." in text_of(alice_client.get(PAGE))

    evaluate()

    text = text_of(alice_client.get(PAGE))
    assert "The rules are not being checked." not in text and "Rules checked just now" in text


def test_the_overview_shows_open_incidents_on_top(alice_client, incidents):
    text = text_of(alice_client.get("/health/"))

    assert text.index("Open incident") < text.index("Integration status")
    assert "Order confirmations stopped" in text


def test_the_overview_has_no_incident_block_without_open_incidents(alice_client, brand):
    assert "Open incident" not in text_of(alice_client.get("/health/"))
