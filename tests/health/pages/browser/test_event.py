"""/health/events/<id>/ in a browser at 1280 and 400 px: one event, in the user's words and time zone."""

from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from attribution.outcomes import Outcome
from brands.models import UserSettings

from .conftest import overflow

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_cancel_that_took_effect_reads_cancelled(open_page, alice, brand, make_event):
    event = make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="1042")

    page = open_page(alice, f"/health/events/{event.pk}/", shot="event")

    expect(page.locator("p.lead")).to_have_text("Cancelled: the order's commission was cancelled")
    assert overflow(page) == 0


def test_the_time_is_shown_in_her_zone_and_the_zone_is_named(open_page, alice, brand, make_event):
    UserSettings.objects.create(user=alice, time_zone="America/New_York")
    event = make_event(
        brand, Outcome.TRACKED, order_id="1042", warnings=["returnWindowClosesAt could not be read"]
    )

    page = open_page(alice, f"/health/events/{event.pk}/")

    local = event.received_at.astimezone(ZoneInfo("America/New_York"))
    received = page.locator("dl.facts dt", has_text="Received").locator("xpath=following-sibling::dd[1]")
    expect(received).to_have_text(f"{local:%Y-%m-%d %H:%M:%S} America/New_York")
    expect(page.locator("footer")).to_contain_text("Times are in America/New_York")
    expect(page.get_by_text("returnWindowClosesAt could not be read")).to_be_visible()


def test_another_brands_user_gets_not_found(open_page, bob, brand, make_event):
    event = make_event(brand, Outcome.TRACKED, order_id="1042")

    page = open_page(bob, f"/health/events/{event.pk}/")

    expect(page.get_by_text("1042")).to_have_count(0)
    assert page.title() != f"Event {event.pk} · Acme · Creator attribution"


def test_an_anonymous_visitor_gets_the_sign_in_page(open_page, brand, make_event):
    event = make_event(brand)

    page = open_page(None, f"/health/events/{event.pk}/")

    expect(page.locator("input[name=password]")).to_be_visible()
