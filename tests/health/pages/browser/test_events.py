"""/health/events/ in a browser at 1280 and 400 px: the list, its labels and everyday filters."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from attribution.outcomes import Outcome

from .conftest import inside_window, overflow, stacked

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def acme_events(brand, make_event):
    make_event(
        brand,
        Outcome.TRACKED,
        order_id="1042",
        ago=timedelta(minutes=10),
        warnings=["returnWindowClosesAt could not be read"],
    )
    make_event(brand, Outcome.DUPLICATE_ORDER, order_id="1042", ago=timedelta(minutes=20))
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, order_id="10420", ago=timedelta(minutes=30))
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="1042", ago=timedelta(minutes=40))
    make_event(brand, Outcome.NO_ATTRIBUTION, order_id="2001", ago=timedelta(minutes=50))


def rows(page):
    return page.locator("table.events tbody tr")


def test_each_row_says_in_plain_words_what_its_code_means(open_page, alice, acme_events, width):
    page = open_page(alice, "/health/events/", shot="events")

    cancel = rows(page).filter(has_text="Cancel").filter(has=page.locator("code", has_text="tracked"))
    expect(cancel.locator(".outcome-label")).to_have_text("Cancelled: the order's commission was cancelled")
    expect(cancel.locator(".outcome-label")).to_be_visible()
    duplicate = rows(page).filter(has=page.locator("code", has_text="duplicate_order"))
    expect(duplicate.locator(".outcome-label")).to_have_text(
        "Order id already received; this repeat was ignored"
    )


def test_an_event_with_a_warning_is_flagged_in_its_row(open_page, alice, acme_events):
    page = open_page(alice, "/health/events/")

    flagged = rows(page).filter(has=page.locator(".badge.warn"))
    expect(flagged).to_have_count(1)
    expect(flagged.locator("td.order-id")).to_have_text("1042")
    expect(flagged.locator(".badge.warn")).to_be_visible()


def test_the_needs_your_action_and_has_warnings_filters(open_page, alice, acme_events):
    page = open_page(alice, "/health/events/")

    page.get_by_label("Needs your action").check()
    page.get_by_role("button", name="Apply filters").click()
    expect(rows(page).locator("code")).to_have_text(["duplicate_order", "invalid_order_amount"])

    page.get_by_label("Needs your action").uncheck()
    page.get_by_label("Has warnings").check()
    page.get_by_role("button", name="Apply filters").click()
    expect(rows(page).locator("td.order-id")).to_have_text(["1042"])


def test_the_order_id_box_finds_the_ids_that_start_with_what_is_typed(open_page, alice, acme_events):
    page = open_page(alice, "/health/events/")

    page.get_by_label("Order id starts with").fill("1042")
    page.get_by_role("button", name="Apply filters").click()

    expect(page).to_have_url(re.compile(r"order_id=1042"))
    expect(rows(page).locator("td.order-id")).to_have_text(["1042", "1042", "10420", "1042"])


def test_on_a_phone_each_event_is_a_block_that_fits(open_page, alice, acme_events, width):
    page = open_page(alice, "/health/events/")

    assert overflow(page) == 0
    assert stacked(page.locator("table.events")) is (width < 640)
    assert inside_window(page, page.locator("table.events td"))
    expect(rows(page).first.get_by_role("link", name=re.compile("Details"))).to_be_visible()


def test_another_brands_user_sees_none_of_these_events(open_page, bob, acme_events):
    page = open_page(bob, "/health/events/")

    expect(page.get_by_text("No events yet.")).to_be_visible()
    expect(page.get_by_text("1042")).to_have_count(0)


def test_an_anonymous_visitor_gets_the_sign_in_page(open_page, acme_events):
    page = open_page(None, "/health/events/")

    expect(page.locator("input[name=password]")).to_be_visible()
