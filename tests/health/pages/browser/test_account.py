"""/health/account/ in a browser at 1280 and 400 px: a user picks her time zone and her pages follow it."""

from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from attribution.outcomes import Outcome

pytestmark = pytest.mark.django_db(transaction=True)


def test_she_picks_her_zone_and_the_events_list_shows_it(open_page, alice, brand, make_event):
    event = make_event(brand, Outcome.TRACKED, order_id="1042")
    page = open_page(alice, "/health/events/")
    expect(page.locator("footer")).to_contain_text("Times are in UTC")

    page.locator("footer").get_by_role("link", name="Change time zone").click()
    page.get_by_role("combobox", name="Time zone").select_option("Asia/Tokyo")
    page.get_by_role("button", name="Save").click()

    local = event.received_at.astimezone(ZoneInfo("Asia/Tokyo"))
    expect(page.locator("table.events thead")).to_contain_text("Received (Asia/Tokyo)")
    expect(page.locator("table.events td[data-label=Received]")).to_have_text(f"{local:%Y-%m-%d %H:%M:%S}")
    expect(page.locator("footer")).to_contain_text("Times are in Asia/Tokyo")


def test_an_anonymous_visitor_gets_the_sign_in_page(open_page, db):
    page = open_page(None, "/health/account/")

    expect(page.locator("input[name=password]")).to_be_visible()
