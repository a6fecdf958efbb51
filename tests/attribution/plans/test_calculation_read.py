"""The read API's commission.calculation (docs/api.md): the one kept with the commission, or for one made
before plans its version 1's, computed on read."""

import csv
import io
from decimal import Decimal

from attribution.billing.export import csv_lines
from attribution.models import Commission
from tests.attribution.keyed import commission_for, order_url


def test_a_commission_made_before_plans_shows_its_version_1_calculation(client, alice):
    commission = commission_for(alice.brand, order_id="A-1", order_amount="49.90", rate="10")

    body = client.get(order_url("A-1"), **alice.headers).json()

    assert body["commission"]["plan_version"] == 1
    assert body["commission"]["calculation"] == {
        "plan_version": 1,
        "order": {
            "amount": "49.9",
            "is_returning_customer": False,
            "creator_id": commission.creator_id,
            "shipping": "0",
            "shipping_tax": "0",
            "taxes_included": False,
        },
        "currency": "USD",
        "plan_currency": "USD",
        "fx_rate": "1",
        "base": {
            "gross": "49.90",
            "discounts": "0.00",
            "tax_taken_out": "0.00",
            "tax_added": "0.00",
            "shipping": "0.00",
            "total": "49.90",
        },
        "lines": [
            {
                "item": "whole order",
                "rule": "Default",
                "base": "49.90",
                "percent": "10.00",
                "flat": None,
                "commission": "4.99",
            }
        ],
        "per_order": [],
        "tier": None,
        "limits": [],
        "total": "4.99",
        "rate_percent": "10.00",
        "computed_on_read": True,
    }


def test_a_commission_priced_by_a_plan_shows_the_calculation_it_keeps(client, alice):
    commission = commission_for(alice.brand, order_id="A-1")
    kept = {"plan_version": 3, "lines": [{"rule": "Belts", "commission": "10.00"}], "total": "10.00"}
    Commission.objects.filter(pk=commission.pk).update(calculation=kept, plan_version=3)

    body = client.get(order_url("A-1"), **alice.headers).json()

    assert body["commission"]["plan_version"] == 3
    assert body["commission"]["calculation"] == kept
    assert body["commission"]["amount"] == str(Decimal("10.00"))


def test_a_statements_csv_names_each_commissions_plan_version_and_rules_to_group_by(alice):
    kept = {
        "plan_version": 2,
        "lines": [{"rule": "Belts"}, {"rule": "Default"}, {"rule": "Belts"}],
        "per_order": [],
    }
    commission = commission_for(alice.brand, order_id="A-1", state=Commission.State.LOCKED)
    Commission.objects.filter(pk=commission.pk).update(calculation=kept, plan_version=2)
    old = commission_for(alice.brand, order_id="A-2", state=Commission.State.LOCKED)

    rows = list(csv.DictReader(io.StringIO("".join(csv_lines(old.statement)).removeprefix("\ufeff"))))

    assert [(r["order_id"], r["plan_version"], r["rules"]) for r in rows] == [
        ("A-1", "2", "Belts; Default"),
        ("A-2", "1", "Default"),  # made before plans: version 1, the brand's rate
    ]
