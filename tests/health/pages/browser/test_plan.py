"""/health/plan/ and an order priced line by line, in a browser at 1280 and 400 px: the plan's rules read as
sentences, a simulated order's calculation, and nothing scrolls sideways."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from attribution.models import Commission
from attribution.plans import versions
from attribution.plans.document import parse
from attribution.plans.engine import KeptLine, KeptLines, price
from tests import factories
from tests.attribution.keyed import commission_for

from .conftest import overflow

pytestmark = pytest.mark.django_db(transaction=True)

LONG_SKU = "SUMMER-LINEN-OVERSHIRT-XL-0042"


def a_plan_with_everything(brand) -> None:
    sam = factories.CreatorFactory(brand=brand, name="Samantha Second-Longname")
    document = {
        "currency": "USD",
        "default": {"percent": "10"},
        "rules": [
            {
                "name": "Summer linen",
                "when": {"skus": [LONG_SKU], "collections": ["summer", "belts"]},
                "flat": "3",
            },
            {"name": "Sam's rate", "when": {"creators": [sam.pk], "customer": "returning"}, "percent": "12"},
            {"name": "Big orders", "when": {"order_amount_at_least": "250"}, "percent": "8", "flat": "2.50"},
        ],
        "minimum_order_amount": "20",
        "cap_per_order": "50",
        "tiers": [{"metric": "revenue", "from": "5000", "percent": "15", "retroactive": True}],
        "effective_from": "2026-01-01T00:00:00Z",
    }
    versions.save(brand=brand, document=document, at=datetime(2026, 1, 2, tzinfo=UTC), created_by="alice")


def test_the_plan_reads_as_sentences_and_fits_the_window(open_page, alice, brand):
    a_plan_with_everything(brand)

    page = open_page(alice, "/health/plan/", shot="plan")

    rules = page.locator("#plan-rule-table tbody tr")
    expect(rules.nth(0)).to_contain_text(f"SKU {LONG_SKU} and collections summer, belts")
    expect(rules.nth(0)).to_contain_text("3.00 USD per unit")
    expect(rules.nth(1)).to_contain_text("creator Samantha Second-Longname")
    expect(rules.nth(2)).to_contain_text("8 % + 2.50 USD per order")
    expect(page.locator("#plan-terms")).to_contain_text("5,000.00 USD")
    expect(page.locator("#plan-version-table")).to_contain_text("2026-01-01 00:00")
    expect(page.locator("#sim-items")).to_have_value("")
    assert overflow(page) == 0


def test_a_simulated_order_shows_its_calculation_and_keeps_the_items(open_page, alice, brand):
    a_plan_with_everything(brand)
    items = f'[{{"sku": "{LONG_SKU}", "quantity": 2, "amount": "80.00", "collections": ["summer"]}}, {{"sku": "HAT", "amount": "30"}}]'
    page = open_page(alice, "/health/plan/")

    page.locator("#sim-items").fill(items)
    page.get_by_role("button", name="Simulate").click()

    calculation = page.get_by_role("table", name="How the commission was calculated")
    expect(calculation).to_contain_text("Summer linen")
    expect(calculation.locator("tfoot")).to_contain_text("9.00")
    expect(page.locator("#sim-items")).to_have_value(items)
    open_page.save(page, "plan-simulated")
    assert overflow(page) == 0


def test_an_order_priced_line_by_line_fits_the_window(open_page, alice, brand):
    commission = commission_for(brand, order_id="LINES-1", order_amount="130.00")
    plan = parse(
        {
            "currency": "USD",
            "default": {"percent": "10"},
            "rules": [
                {
                    "name": "Summer linen, long-sleeved",
                    "when": {"skus": [LONG_SKU]},
                    "percent": "15",
                    "flat": "1.25",
                }
            ],
        }
    )
    lines = KeptLines(
        (KeptLine(gross=Decimal("80"), quantity=2, sku=LONG_SKU), KeptLine(gross=Decimal("50"), sku="TEE"))
    )
    priced = price(
        plan,
        version=2,
        amount=Decimal("130"),
        currency="USD",
        is_returning_customer=False,
        lines=lines,
        creator_id=None,
    )
    Commission.objects.filter(pk=commission.pk).update(calculation=priced.calculation)

    page = open_page(alice, "/health/orders/LINES-1", shot="order-lines")

    calculation = page.get_by_role("table", name="How the commission was calculated")
    expect(calculation).to_contain_text("Summer linen, long-sleeved")
    expect(calculation).to_contain_text("15 % + 2.50 flat")
    assert overflow(page) == 0
    box = calculation.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.evaluate("window.innerWidth")
