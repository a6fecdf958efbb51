"""A statement with lines in two currencies, in a browser at 1280 and 400 px: the total in the brand's
reporting currency first, with the rates used, each line in its own currency and converted, nothing wider
than the window; the statements list with the same total, each currency a click away, and what has no rate
beside it (docs/currencies.md)."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.attribution.fx.conftest import rates  # noqa: F401  (the fixture)
from tests.attribution.fx.test_statements_in_reporting import billed, statement_with_two_currencies
from tests.factories import CreatorFactory

from .conftest import overflow, stacked

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def statement(rates, brand):  # noqa: F811
    return statement_with_two_currencies(brand)


def test_a_statement_totals_in_usd_with_each_line_in_its_own_currency(open_page, alice, statement, width):
    page = open_page(alice, f"/health/statements/{statement.pk}/", shot="statement-two-currencies")

    expect(page.locator("#reporting-total")).to_have_text("48.38 USD")
    expect(page.locator("#rates-used")).to_contain_text("rates published 2026-10-30")
    lines = page.locator("#lines tbody tr")
    expect(lines).to_have_count(3)
    expect(lines.nth(0)).to_contain_text("EUR")
    expect(lines.nth(0)).to_contain_text("27.98 USD")
    assert overflow(page) == 0
    assert stacked(page.locator("#lines")) == (width == 400)


def test_the_list_totals_it_in_usd_each_currency_a_click_away_and_names_what_has_no_rate(
    open_page, alice, statement, brand, width
):
    cy = CreatorFactory(brand=brand, name="Cy")
    billed(brand, statement, creator=cy, currency="AED", amount=Decimal("30.00"))
    page = open_page(alice, "/health/statements/", shot="statements-two-currencies")

    row = page.locator("#statements tbody tr").first
    total = row.locator("details.per-currency")
    expect(total.locator("summary")).to_have_text("48.38 USD")
    expect(total.locator("span").first).not_to_be_visible()
    total.locator("summary").click()
    expect(total.locator("span")).to_have_text(["30.00 AED", "25.05 EUR", "10.00 GBP", "7.00 USD"])
    expect(row.locator(".not-converted")).to_contain_text("Not in this total: 30.00 AED (1 item: No ECB")
    expect(page.locator("#rates-used")).to_contain_text("rates published 2026-10-30")
    open_page.save(page, "statements-two-currencies-open")
    assert overflow(page) == 0
    assert stacked(page.locator("#statements")) == (width == 400)
