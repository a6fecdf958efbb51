"""The review alerts on the Alerts page and on an incident's page: alice switches them like the other rules,
and a review incident's page names what it is about and leads to the held commissions on the Review page."""

import re
from datetime import timedelta
from html import unescape

import pytest

from attribution.models import ReviewFlag
from health.alerts.evaluation import evaluate
from health.alerts.models import AlertRuleSet
from tests import factories
from tests.health.alerting import T0
from tests.health.reviewing import held

pytestmark = pytest.mark.django_db

RULES = {
    "silence_enabled": "on",
    "silence_floor_minutes": "60",
    "silence_usual_orders": "5",
    "spike_enabled": "on",
    "spike_percent": "20",
    "spike_min_events": "5",
    "new_problem_enabled": "on",
    "new_problem_count": "3",
    "capture_enabled": "on",
    "capture_drop_points": "10",
    "capture_normal_percent": "95",
    "email_enabled": "on",
}


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


def test_the_alerts_page_lists_the_review_rules_on_by_default(alice_client):
    response = alice_client.get("/health/alerts/")

    text = text_of(response)
    assert "Holds waiting for review" in text and "Code leak" in text and "Refund rate" in text
    assert "your review time (7 days" in text
    page = response.content.decode()
    for name in ("review_overdue_enabled", "code_leak_enabled", "refund_outlier_enabled"):
        assert re.search(rf'name="{name}"[^>]*checked', page)


def test_alice_turns_a_review_alert_off_on_the_alerts_page(alice_client, brand):
    response = alice_client.post(
        "/health/alerts/", RULES | {"review_overdue_enabled": "on", "refund_outlier_enabled": "on"}
    )

    assert response.status_code == 302
    rules = AlertRuleSet.objects.get(brand=brand)
    assert (rules.review_overdue_enabled, rules.code_leak_enabled, rules.refund_outlier_enabled) == (
        True,
        False,
        True,
    )


def test_an_overdue_incident_page_leads_to_the_review_page(alice_client, brand, creator):
    held(brand, creator, "A-1", at=T0)
    incident = evaluate(now=T0 + timedelta(days=8)).opened[0]

    response = alice_client.get(f"/health/alerts/incidents/{incident.pk}/")

    assert response.status_code == 200
    assert "1 held commission has waited longer than your review time of 7 days" in text_of(response)
    assert f'href="/health/review/?brand={brand.pk}"' in response.content.decode()
    card = alice_client.get("/health/alerts/").content.decode()  # the open incident's card
    assert f'<a href="/health/review/?brand={brand.pk}">Held commissions →</a>' in card


def test_a_refund_outlier_incident_names_her_and_leads_to_her_holds(
    alice_client, bob, client, brand, creator
):
    ReviewFlag.objects.create(
        brand=brand,
        kind=ReviewFlag.Kind.REFUND_RATE,
        creator=creator,
        detail="Ana: 9 of her 30 attributed orders were cancelled or refunded (30 %), against 8 % for the brand",
        computed_at=T0,
    )
    incident = evaluate(now=T0 + timedelta(minutes=1)).opened[0]

    response = alice_client.get(f"/health/alerts/incidents/{incident.pk}/")

    text = text_of(response)
    assert "Refund rate above yours: Ana" in text and "Refund rate above the brand's · Ana" in text
    assert f'href="/health/review/?brand={brand.pk}&amp;creator={creator.pk}"' in response.content.decode()
    assert "Refund rate above yours: Ana" in text_of(alice_client.get("/health/"))  # open on the overview
    client.force_login(bob)
    assert client.get(f"/health/alerts/incidents/{incident.pk}/").status_code == 404


def test_a_code_leak_incident_names_the_code(alice_client, brand, creator):
    code = factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    ReviewFlag.objects.create(
        brand=brand,
        kind=ReviewFlag.Kind.CODE_SHARE,
        discount_code=code,
        detail="code ANA10: …",
        computed_at=T0,
    )
    incident = evaluate(now=T0 + timedelta(minutes=1)).opened[0]

    text = text_of(alice_client.get(f"/health/alerts/incidents/{incident.pk}/"))

    assert "Code leak suspected: ANA10" in text and "Code leak suspected · ANA10" in text
