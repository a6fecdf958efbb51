"""GET and PUT /api/Affiliates/commission_plan, POST /api/Affiliates/commission_plan/preview (docs/plans.md):
alice manages Acme's plan with her key, bob's key reaches only Globex's, an anonymous caller nothing."""

import json
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from attribution.models import AmountChange, Commission
from attribution.plans.shown import calculation
from brands.models import PlanVersion
from tests.attribution.keyed import commission_for

URL = "/api/Affiliates/commission_plan"
PREVIEW = "/api/Affiliates/commission_plan/preview"
PAST = "2026-04-01T00:00:00Z"  # before the commissions of tests.attribution.keyed (2026-05-01)


def plan(**change):
    return {"currency": "USD", "default": {"percent": "10"}, "effective_from": PAST, **change}


def put(client, caller, document):
    return client.put(URL, json.dumps(document), content_type="application/json", **caller.headers)


def post_preview(client, caller, document):
    return client.post(PREVIEW, json.dumps(document), content_type="application/json", **caller.headers)


def test_a_brand_that_stored_no_plan_reads_its_rates_as_version_1(client, alice):
    response = client.get(URL, **alice.headers)

    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["version"] == 1
    assert body["plan"]["default"] == {"percent": "10.00"}
    assert body["plan"]["rules"] == []


def test_a_put_stores_the_next_version_keeping_the_rates_as_version_1(client, alice):
    response = put(client, alice, plan(default={"percent": "12"}))

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "found",
        "version": 2,
        "re_priced": {"commissions": 0},
    }
    stored = list(PlanVersion.objects.filter(brand=alice.brand).order_by("version"))
    assert [(v.version, v.created_by) for v in stored] == [
        (1, "rates"),
        (2, f"developer key {alice.key.prefix}"),
    ]
    assert stored[1].document["default"] == {"percent": "12"}
    read = client.get(URL, **alice.headers).json()
    assert read["version"] == 2
    assert [v["version"] for v in read["versions"]] == [2, 1]


@pytest.mark.parametrize(
    "document, error",
    [
        (plan(default={"percent": "120"}), "default.percent: must be between 0 and 100"),
        (
            plan(rules=[{"name": "x", "when": {"creators": [999999]}, "percent": "5"}]),
            "rules[0].when.creators",
        ),
        (plan(currency="ABC"), "currency"),
        (plan(cap_per_order="-1"), "cap_per_order: must not be negative"),
        (plan(bonus="1"), "bonus: unknown field"),
        (plan(rules=[{"name": "x", "percent": "1"}] * 201), "rules: at most 200 rules"),
    ],
)
def test_a_plan_at_fault_is_refused_whole_naming_the_field_and_nothing_is_stored(
    client, alice, document, error
):
    commission = commission_for(alice.brand, order_id="A-1")

    response = put(client, alice, {**document, "apply_to": "unpaid"})

    assert response.status_code == 400
    assert response.json()["success"] is False
    assert response.json()["error"].startswith(error)
    assert not PlanVersion.objects.exists()
    commission.refresh_from_db()
    assert commission.amount == Decimal("10.00")


def test_apply_to_unpaid_re_prices_pending_commissions_with_the_version_as_cause(client, alice):
    pending = commission_for(alice.brand, order_id="A-1")
    locked = commission_for(alice.brand, order_id="A-2", state=Commission.State.LOCKED)

    response = put(client, alice, plan(default={"percent": "15"}, apply_to="unpaid"))

    assert response.json() == {
        "success": True,
        "outcome": "found",
        "version": 2,
        "re_priced": {"commissions": 1},
    }
    pending.refresh_from_db()
    locked.refresh_from_db()
    assert (pending.amount, pending.plan_version, pending.rate_percent) == (
        Decimal("15.00"),
        2,
        Decimal("15.00"),
    )
    assert calculation(pending)["lines"][0]["percent"] == "15"
    assert locked.amount == Decimal("10.00")
    change = AmountChange.objects.get(commission=pending)
    assert (change.old_amount, change.new_amount, change.plan_version) == (
        Decimal("10.00"),
        Decimal("15.00"),
        2,
    )


def test_apply_to_new_orders_leaves_every_commission_as_it_is(client, alice):
    pending = commission_for(alice.brand, order_id="A-1")

    response = put(client, alice, plan(default={"percent": "15"}))

    assert response.json()["re_priced"] == {"commissions": 0}
    pending.refresh_from_db()
    assert pending.amount == Decimal("10.00")
    assert not AmountChange.objects.exists()


def test_apply_to_unpaid_leaves_orders_placed_before_the_effective_date(client, alice):
    pending = commission_for(alice.brand, order_id="A-1")

    put(
        client,
        alice,
        plan(default={"percent": "15"}, apply_to="unpaid", effective_from="2026-06-01T00:00:00Z"),
    )

    pending.refresh_from_db()
    assert pending.amount == Decimal("10.00")


def test_a_preview_says_what_would_change_and_stores_nothing(client, alice):
    commission_for(alice.brand, order_id="A-1")
    commission_for(alice.brand, order_id="A-2", order_amount="50.00")

    response = post_preview(client, alice, plan(default={"percent": "20"}, apply_to="unpaid"))

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 2
    assert body["re_priced"]["commissions"] == 2
    assert body["re_priced"]["difference"] == "15.00"  # +10.00 and +5.00, in the reporting currency
    assert body["re_priced"]["examples"][0] == {
        "order_id": "A-1",
        "old": "10.00",
        "new": "20.00",
        "currency": "USD",
        "rules": ["Default"],
    }
    assert not PlanVersion.objects.exists()
    assert set(Commission.objects.values_list("amount", flat=True)) == {Decimal("10.00"), Decimal("5.00")}


def test_a_preview_of_a_plan_at_fault_is_refused_naming_the_field(client, alice):
    response = post_preview(client, alice, plan(tiers=[{"metric": "clicks", "from": 1, "percent": "1"}]))

    assert response.status_code == 400
    assert response.json()["error"].startswith("tiers[0].metric")


def test_another_brands_key_reads_and_changes_only_its_own_plan(client, alice, bob):
    put(client, bob, plan(default={"percent": "30"}))

    assert client.get(URL, **alice.headers).json()["version"] == 1
    assert not PlanVersion.objects.filter(brand=alice.brand).exists()


def test_an_anonymous_caller_is_refused(client, alice):
    assert client.get(URL).status_code == 401
    assert client.put(URL, json.dumps(plan()), content_type="application/json").status_code == 401
    assert not PlanVersion.objects.exists()


def test_a_stored_version_is_never_edited(client, alice):
    put(client, alice, plan())
    version = PlanVersion.objects.get(brand=alice.brand, version=2)

    with pytest.raises(PlanVersion.Edited):
        version.save()
    with pytest.raises(PlanVersion.Edited):
        version.delete()
    if connection.vendor == "postgresql":  # the database refuses it too
        with pytest.raises(DatabaseError), transaction.atomic():
            PlanVersion.objects.filter(pk=version.pk).update(document={})
