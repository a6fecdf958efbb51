"""A plan document is accepted whole or refused whole with an error naming its field
(attribution.plans.document)."""

from decimal import Decimal

import pytest

from attribution.plans.document import Refused, parse

ISSUE_EXAMPLE = {
    "currency": "USD",
    "base": {"after_discounts": True, "shipping": False, "tax": False},
    "default": {"percent": "10"},
    "rules": [
        {"name": "Ana's rate", "when": {"creators": [12]}, "percent": "20"},
        {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
        {"name": "New customers", "when": {"customer": "new"}, "percent": "12"},
        {"name": "Summer kit", "when": {"collections": ["summer"], "creators": [12]}, "flat": "3.00"},
    ],
    "minimum_order_amount": "20.00",
    "cap_per_order": "50.00",
    "cap_per_creator_month": "1000.00",
    "tiers": [{"metric": "orders", "from": 10, "percent": "15", "retroactive": False}],
    "effective_from": "2026-12-01T00:00:00Z",
    "apply_to": "new_orders",
}


def refusal(document, **kw) -> str:
    with pytest.raises(Refused) as refused:
        parse(document, **kw)
    return str(refused.value)


def test_the_issues_example_is_a_plan():
    plan = parse(ISSUE_EXAMPLE, creator_exists=lambda ids: set(ids))

    assert [rule.name for rule in plan.rules] == ["Ana's rate", "Belts", "New customers", "Summer kit"]
    assert plan.rules[3].when.per_line and not plan.rules[0].when.per_line
    assert plan.cap_per_creator_month == Decimal("1000.00")
    assert plan.effective_from.isoformat() == "2026-12-01T00:00:00+00:00"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"currency": "XYZ"}, "currency"),
        ({"default": {"percent": "101"}}, "default.percent"),
        ({"rules": [{"name": "a", "percent": "-1"}]}, "rules[0].percent"),
        ({"cap_per_order": "-5"}, "cap_per_order"),
        ({"rules": [{"name": "a", "flat": "-0.01"}]}, "rules[0].flat"),
        ({"colour": "red"}, "colour"),
        ({"rules": [{"name": "a", "when": {"colour": ["red"]}, "percent": "1"}]}, "rules[0].when.colour"),
        ({"rules": [{"name": "a", "percent": "1"}] * 201}, "rules"),
        ({"tiers": [{"metric": "clicks", "from": 1, "percent": "1"}]}, "tiers[0].metric"),
        ({"apply_to": "everything"}, "apply_to"),
        ({"effective_from": "tomorrow"}, "effective_from"),
        ({"rules": [{"name": "a", "when": {"customer": "vip"}, "percent": "1"}]}, "rules[0].when.customer"),
    ],
)
def test_a_plan_at_fault_is_refused_naming_the_field(change, field):
    assert refusal({"currency": "USD", "default": {"percent": "10"}, **change}).startswith(f"{field}: ")


def test_a_plan_naming_a_creator_the_brand_does_not_have_is_refused():
    document = {"currency": "USD", "rules": [{"name": "x", "when": {"creators": [7, 99]}, "percent": "5"}]}

    assert (
        refusal(document, creator_exists=lambda ids: {7})
        == "rules[0].when.creators: no creator 99 in this brand"
    )


def test_two_hundred_rules_are_allowed():
    document = {
        "currency": "USD",
        "rules": [{"name": f"r{i}", "when": {"skus": [str(i)]}, "percent": "1"} for i in range(200)],
    }

    assert len(parse(document).rules) == 200
