"""/health/creators/ and a creator's page in a browser at 1280 and 400 px: the figures where a person
looks for them, sorting, the way to her page and on to an order, and nothing wider than the window."""

import re
from datetime import date

import pytest
from playwright.sync_api import expect

from attribution.fx import loading
from tests.health.pages import creators_world

from .conftest import overflow, stacked

pytestmark = pytest.mark.django_db(transaction=True)

OCTOBER = "period=custom&from=2026-10-01&to=2026-10-31"


@pytest.fixture
def world(brand, prop):
    loading.load_bundled(since=date(2026, 10, 1))  # a transactional test before may have emptied the table
    return creators_world.build(brand, prop)


def names(page, table="#creators"):
    return page.locator(f"{table} tbody th.name a").all_inner_texts()


def test_the_creators_page_shows_each_creator_with_her_figures_and_the_brands(open_page, alice, world, width):
    page = open_page(alice, f"/health/creators/?{OCTOBER}", shot="creators")

    expect(page.get_by_role("heading", name="Acme")).to_be_visible()
    assert names(page) == ["Ana", "Ben", "Cleo"]
    ana = page.locator(f'#creators tr[data-creator="{world["Ana"].pk}"]')
    expect(ana.locator('[data-key="orders"]')).to_have_text("8")
    expect(ana.locator('[data-key="refund_rate"]')).to_have_text("14.3%")
    expect(page.locator('#creators tfoot [data-key="refund_rate"]')).to_have_text("12.5%")
    money = page.locator(f'#creators-money tr[data-creator="{world["Ana"].pk}"]')
    expect(money.locator('[data-key="held@USD"]')).to_have_text("7.00")  # in the reporting currency
    expect(page.locator("#rates-used")).to_contain_text(
        "In USD: each commission converted when it was created, at the ECB reference rate of its order's date "
        "(rates published 2026-10-15)"
    )
    assert overflow(page) == 0
    page.get_by_role("link", name="Show each currency as paid").click()  # one click away
    expect(money.locator('[data-key="revenue:USD"]')).to_have_text("480.00")
    expect(money.locator('[data-key="held:USD"]')).to_have_text("7.00")
    expect(money.locator('[data-key="revenue:EUR"]')).to_have_text("40.00")
    assert overflow(page) == 0
    if width == 400:
        assert stacked(page.locator("#creators"))
        assert stacked(page.locator("#creators-money"))
    else:
        assert not stacked(page.locator("#creators"))


def test_it_sorts_by_a_heading_on_a_laptop_and_by_the_menu_anywhere(open_page, alice, world, width):
    page = open_page(alice, f"/health/creators/?{OCTOBER}")

    if width == 1280:
        page.locator("#creators-money thead").get_by_role("link", name=re.compile("^Revenue")).first.click()
        expect(page).to_have_url(re.compile(r"sort=revenue%40USD|sort=revenue@USD"))
        assert names(page) == ["Ana", "Ben", "Cleo"]
    page.get_by_label("Sort by").select_option(label="Revenue USD")
    page.get_by_label("Direction").select_option("asc")
    page.get_by_role("button", name="Sort").click()
    expect(page.locator("#creators tbody th.name a").first).to_have_text("Cleo")
    assert names(page) == ["Cleo", "Ben", "Ana"]
    assert "from=2026-10-01" in page.url  # the period is kept


def test_from_a_name_to_her_page_and_on_to_an_order(open_page, alice, world, width):
    page = open_page(alice, f"/health/creators/?{OCTOBER}")

    page.locator("#creators").get_by_role("link", name="Ana").click()

    expect(page.get_by_role("heading", name="Ana", level=1)).to_be_visible()
    expect(page.locator("#orders-total")).to_have_text("8")
    expect(page.locator(f"svg.chart-{'wide' if width == 1280 else 'narrow'}").first).to_be_visible()
    expect(page.locator("#codes tbody tr")).to_have_count(1)
    holds = page.locator("#holds tbody tr")
    expect(holds).to_have_count(2)
    expect(holds.filter(has_text="self_referral")).to_contain_text("waiting")
    expect(holds.filter(has_text="code_leak")).to_contain_text("Rejected")
    open_page.save(page, "creator")
    assert overflow(page) == 0
    if width == 400:
        assert stacked(page.locator("#latest"))

    page.locator("#latest").get_by_role("link", name="A5").click()
    expect(page).to_have_url(re.compile(r"/health/orders/A5$"))


def test_another_brands_user_and_an_anonymous_visitor_do_not_see_her(open_page, bob, world):
    page = open_page(bob, f"/health/creators/{world['Ana'].pk}/")
    assert "Ana" not in page.content()

    page = open_page(None, "/health/creators/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
