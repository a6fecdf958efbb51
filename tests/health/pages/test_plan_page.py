"""/health/plan/: the brand's commission plan, its versions, a change previewed then saved, and a simulated
order. alice changes Acme's, the account manager any brand's; bob gets a 404 for Acme's and an anonymous
visitor is sent to sign in."""

import json
import re
from html import unescape

import pytest

from attribution.models import Commission
from brands.models import PlanVersion, UserSettings
from tests import factories
from tests.attribution.keyed import commission_for

pytestmark = pytest.mark.django_db

PAGE = "/health/plan/"
PLAN = {
    "currency": "USD",
    "default": {"percent": "10"},
    "rules": [{"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"}],
}


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


def test_alice_sees_her_brands_rates_as_version_1(alice_client, brand):
    response = alice_client.get(PAGE)

    assert response.status_code == 200
    text = text_of(response)
    assert "Version 1" in text
    assert "Default 10.00 %, on what no rule takes" in text
    assert "1. Returning customers returning customers" not in text  # Acme has no returning rate


def test_the_rules_read_as_sentences_and_the_dates_in_her_zone(client, alice, brand):
    UserSettings.objects.create(user=alice, time_zone="America/New_York")
    client.force_login(alice)
    sam = factories.CreatorFactory(brand=brand, name="Sam Second")
    plan = {
        **PLAN,
        "rules": [
            *PLAN["rules"],
            {"name": "Sam's rate", "when": {"creators": [sam.pk], "customer": "returning"}, "flat": "2"},
        ],
        "cap_per_order": "50",
        "effective_from": "2026-01-01T00:00:00Z",
    }
    client.post(PAGE, {"action": "save", "document": json.dumps(plan)})

    text = text_of(client.get(PAGE))

    assert "1. Belts SKU BELT-01 (line by line) 15 %" in text
    assert f"2. Sam's rate creator Sam Second (#{sam.pk}) and returning customers 2.00 USD per order" in text
    assert "Cap per order 50.00 USD" in text
    assert "since 2025-12-31 19:00 EST" in text
    assert "2 in effect 2025-12-31 19:00" in text
    assert "1 always" in text
    assert "{'skus'" not in text


def test_the_items_box_is_empty_until_she_types_items(alice_client, brand):
    response = alice_client.get(PAGE)

    box = re.search(r'<textarea id="sim-items"[^>]*>(.*?)</textarea>', response.content.decode(), re.S)
    assert box.group(1) == ""


def test_a_simulation_keeps_the_items_she_typed(alice_client, brand):
    items = '[{"sku": "HAT", "amount": "30.00"}]'

    response = alice_client.post(PAGE, {"action": "simulate", "amount": "30", "items": items})

    box = re.search(r'<textarea id="sim-items"[^>]*>(.*?)</textarea>', response.content.decode(), re.S)
    assert unescape(box.group(1)) == items
    assert "HAT × 1 Default 30.00 10.00 % 3.00" in text_of(response)


def test_a_preview_shows_what_unpaid_commissions_would_change_and_saves_nothing(alice_client, brand):
    commission_for(brand, order_id="A-1")

    response = alice_client.post(
        PAGE,
        {
            "action": "preview",
            "document": json.dumps(
                {
                    **PLAN,
                    "default": {"percent": "20"},
                    "effective_from": "2026-01-01T00:00:00Z",
                    "apply_to": "unpaid",
                }
            ),
        },
    )

    assert response.status_code == 200
    text = text_of(response)
    assert "1 unpaid commission(s) would change, by 10.00 USD in all" in text
    assert "Order A-1: 10.00 → 20.00 USD (Default)" in text
    assert not PlanVersion.objects.exists()


def test_saving_makes_a_new_version_made_by_the_user(alice_client, brand):
    response = alice_client.post(PAGE, {"action": "save", "document": json.dumps(PLAN)})

    assert response.status_code == 302
    saved = PlanVersion.objects.get(brand=brand, version=2)
    assert saved.created_by == "alice"
    text = text_of(alice_client.get(PAGE))
    assert "Version 2" in text and "Belts" in text


def test_a_plan_at_fault_is_shown_naming_the_field_and_nothing_is_saved(alice_client, brand):
    response = alice_client.post(
        PAGE, {"action": "save", "document": json.dumps({**PLAN, "cap_per_order": "-2"})}
    )

    assert response.status_code == 400
    assert "cap_per_order: must not be negative — nothing was saved." in text_of(response)
    assert not PlanVersion.objects.exists()


def test_simulating_an_order_prices_its_items_and_records_nothing(alice_client, brand):
    alice_client.post(PAGE, {"action": "save", "document": json.dumps(PLAN)})
    creator = factories.CreatorFactory(brand=brand, name="Ana")
    items = [
        {"sku": "BELT-01", "quantity": 1, "amount": "40.00"},
        {"sku": "HAT", "quantity": 2, "amount": "60.00"},
    ]

    response = alice_client.post(
        PAGE,
        {
            "action": "simulate",
            "amount": "100",
            "currency": "USD",
            "creator": creator.pk,
            "customer": "new",
            "items": json.dumps(items),
        },
    )

    assert response.status_code == 200
    text = text_of(response)
    assert "BELT-01 × 1 Belts 40.00 15 % 6.00" in text
    assert "HAT × 2 Default 60.00 10 % 6.00" in text
    assert "Total (USD) 12.00" in text
    assert not Commission.objects.exists()


def test_the_account_manager_changes_any_brands_plan(client, staff, brand):
    client.force_login(staff)

    response = client.post(f"{PAGE}?brand={brand.pk}", {"action": "save", "document": json.dumps(PLAN)})

    assert response.status_code == 302
    assert PlanVersion.objects.filter(brand=brand, version=2, created_by="manager").exists()


def test_bob_cannot_reach_acmes_plan(client, bob, brand):
    client.force_login(bob)

    assert client.get(f"{PAGE}?brand={brand.pk}").status_code == 404
    assert (
        client.post(f"{PAGE}?brand={brand.pk}", {"action": "save", "document": json.dumps(PLAN)}).status_code
        == 404
    )
    assert not PlanVersion.objects.filter(brand=brand).exists()


def test_an_anonymous_visitor_is_sent_to_sign_in(client, brand):
    response = client.get(PAGE)

    assert response.status_code == 302
    assert "/login" in response["Location"] or "login" in response["Location"]
