"""A statement with lines in two currencies, in a browser at 1280 and 400 px: the total in the brand's
reporting currency first, with the rates used, each line in its own currency and converted, nothing wider
than the window (docs/currencies.md)."""

import pytest
from playwright.sync_api import expect

from tests.attribution.fx.conftest import rates  # noqa: F401  (the fixture)
from tests.attribution.fx.test_statements_in_reporting import statement_with_two_currencies

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
