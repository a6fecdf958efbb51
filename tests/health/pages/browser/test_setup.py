"""/health/setup/ in a browser at 1280 and 400 px: the test order form keeps what was sent."""

import pytest
from playwright.sync_api import expect

from tests import factories

from .conftest import overflow

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def acme_shops(brand, creator):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")  # first alphabetically
    factories.PropertyFactory(brand=brand, host="shop.acme.example", is_primary=True)
    factories.PropertyFactory(brand=brand, host="eu.acme.example")
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")


def test_the_form_starts_from_the_primary_property_and_keeps_what_was_sent(open_page, alice, acme_shops):
    page = open_page(alice, "/health/setup/", shot="setup")
    expect(page.get_by_label("Sent from")).to_have_value("shop.acme.example")

    page.get_by_label("Sent from").select_option("eu.acme.example")
    page.get_by_label("Amount").fill("42.50")
    page.get_by_label("Discount code").fill("ANA10")
    page.get_by_role("button", name="Send a test order").click()

    result = page.locator("#test-result")
    expect(result).to_be_visible()
    expect(result).to_contain_text("tracked")
    expect(page.get_by_label("Sent from")).to_have_value("eu.acme.example")
    expect(page.get_by_label("Amount")).to_have_value("42.50")
    expect(page.get_by_label("Currency")).to_have_value("USD")
    expect(page.get_by_label("Discount code")).to_have_value("ANA10")
    assert overflow(page) == 0
    open_page.save(page, "setup-sent")


def test_another_brands_user_sees_her_own_kit(open_page, bob, acme_shops, other_prop):
    page = open_page(bob, "/health/setup/")

    expect(page.get_by_label("Sent from")).to_have_value("globex.example")
    expect(page.get_by_text("shop.acme.example")).to_have_count(0)


def test_an_anonymous_visitor_gets_the_sign_in_page(open_page, acme_shops):
    page = open_page(None, "/health/setup/")

    expect(page.locator("input[name=password]")).to_be_visible()
