"""/health/ in a browser at 1280 and 400 px (and, for the layout, the widths between): what a brand user sees on
the overview."""

import re
from datetime import UTC, timedelta

import pytest
from playwright.sync_api import expect

from attribution.outcomes import Outcome

from .conftest import inside_window, overflow, stacked
from .session import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def acme_week(brand, make_event, now):
    """Acme's week: three orders today (two tracked, one with a warning), a duplicate and an unreadable
    amount (rejected), a cancel and an update that took effect, and a tracked order five days ago."""
    make_event(brand, Outcome.TRACKED, order_id="A-1")
    make_event(brand, Outcome.TRACKED, order_id="A-2", warnings=["returnWindowClosesAt could not be read"])
    make_event(brand, Outcome.NO_ATTRIBUTION, order_id="A-3")
    make_event(brand, Outcome.DUPLICATE_ORDER, order_id="A-1")
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, order_id="A-4")
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-1")
    make_event(brand, Outcome.TRACKED, endpoint="update", order_id="A-2")
    make_event(brand, Outcome.TRACKED, order_id="A-0", ago=timedelta(days=5))


def visible_chart(page):
    charts = page.locator("svg.chart")
    return next(chart for chart in charts.all() if chart.is_visible())


def test_the_tracked_card_and_the_green_bars_count_the_same_orders(open_page, alice, acme_week):
    page = open_page(alice, "/health/?period=7d", shot="overview")

    card = page.locator("#tracked-card")
    expect(card).to_contain_text("75.0%")
    expect(card).to_contain_text("3 of 4 accepted orders attributed (2 rejected not counted)")
    chart = visible_chart(page)
    green = sum(
        int(rect.locator("title").text_content().split(": ")[1].split()[0])
        for rect in chart.locator("rect[data-group=tracked]").all()
    )
    assert green == 3
    applied = chart.locator("rect[data-group=changed] title")
    expect(applied).to_have_text(
        [f"{chart.locator('text.xtick').last.text_content()}: 2 cancels and updates applied"]
    )


def test_a_cancel_that_took_effect_reads_cancelled(open_page, alice, acme_week):
    page = open_page(alice, "/health/?period=7d")

    table = page.locator("#by-outcome")
    expect(table).to_contain_text("Cancelled: the order's commission was cancelled")
    expect(table).to_contain_text("Updated: the commission follows the new total")
    expect(page.get_by_text("commission created or changed")).to_have_count(0)


def test_the_warnings_are_counted_in_sight_and_lead_to_the_events(open_page, alice, acme_week):
    page = open_page(alice, "/health/?period=7d")

    callout = page.locator("#warnings-callout")
    expect(callout).to_be_visible()
    expect(callout).to_contain_text("1 event in this period carries a warning.")
    callout.get_by_role("link", name="See it").click()

    expect(page.locator("table.events tbody tr")).to_have_count(1)
    expect(page.locator("table.events")).to_contain_text("A-2")
    expect(page.locator("table.events .badge.warn")).to_be_visible()


def test_a_bar_leads_to_the_events_of_its_day(open_page, alice, acme_week, now):
    page = open_page(alice, "/health/?period=7d")
    five_days_ago = (now - timedelta(days=5)).astimezone(UTC).date()

    visible_chart(page).locator(f"a.bar[data-day='{five_days_ago.isoformat()}'] rect.hit").click()

    day = five_days_ago.isoformat()
    expect(page).to_have_url(re.compile(rf"/health/events/\?.*from={day}&to={day}"))
    expect(page.locator("table.events tbody tr")).to_have_count(1)
    expect(page.locator("table.events")).to_contain_text("A-0")


def test_the_chart_labels_today_and_stays_readable(open_page, alice, acme_week, now, width):
    page = open_page(alice, "/health/?period=30d")

    labels = visible_chart(page).locator("text.xtick")
    today = now.astimezone(UTC).date()
    expect(labels.last).to_have_text(f"{today:%b} {today.day}")
    heights = [label.bounding_box()["height"] for label in labels.all()]
    assert min(heights) >= 10, heights  # CSS pixels, as drawn at this width
    assert inside_window(page, labels)


def test_nothing_scrolls_sideways_and_tables_stack_on_a_phone(open_page, alice, acme_week, width):
    page = open_page(alice, "/health/?period=7d")

    assert overflow(page) == 0
    for table in (page.locator("#by-outcome"), page.locator("#by-endpoint")):
        assert stacked(table) is (width < 640)
        assert inside_window(page, table.locator("td"))
    if width < 640:
        count = page.locator("#by-outcome tbody tr").first.locator("td[data-label='Order confirmation']")
        expect(count).to_be_visible()


@pytest.mark.parametrize("between", [641, 800, 1031, 1279])
def test_between_a_phone_and_a_laptop_nothing_scrolls_sideways(
    new_context, live_server, alice, acme_week, between
):
    # A tablet or a narrow window: the nine links and the account once pushed the page 390 px wider, and the
    # hidden labels of the events table 46 px.
    context = new_context(viewport={"width": between, "height": 900}, base_url=live_server.url)
    sign_in(context, alice, live_server.url)
    page = context.new_page()

    for path in ("/health/?period=7d", "/health/events/"):
        page.goto(path)
        assert overflow(page) == 0, path
        assert inside_window(page, page.locator(".mainnav a, .account a, .account button")), path


def test_another_brands_user_sees_only_her_own_brand(open_page, bob, acme_week):
    page = open_page(bob, "/health/")

    expect(page.locator("h1")).to_have_text("Globex")
    expect(page.locator("#warnings-callout")).to_have_count(0)
    expect(page.get_by_text("No live events in this period.")).to_be_visible()


def test_an_anonymous_visitor_gets_the_sign_in_page(open_page, acme_week):
    page = open_page(None, "/health/")

    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/health/$"))
    expect(page.locator("input[name=password]")).to_be_visible()


@pytest.fixture
def every_way_in(brand, make_event, acme_week):
    """Acme's week, plus what each storefront platform and a reconciliation sent: eight columns of counts."""
    for endpoint in ("shopify", "shopify_change", "woocommerce", "woocommerce_change", "reconciliation"):
        make_event(brand, Outcome.TRACKED, endpoint=endpoint, order_id=f"W-{endpoint}")


def test_the_meaning_column_keeps_its_room_beside_every_way_ins_counts(open_page, alice, every_way_in, width):
    page = open_page(alice, "/health/?period=7d", shot="overview-every-way-in")

    table = page.locator("#by-outcome")
    expect(table.locator("thead th")).to_have_count(1 + 8 + 1)
    assert overflow(page) == 0
    if width >= 640:
        meanings = table.locator("tbody .meaning")
        line_height = float(meanings.first.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"))
        # Wide enough to read: at least 16 rem (it was squeezed to a word or two a line), so that no meaning
        # takes more than three lines.
        boxes = [meaning.bounding_box() for meaning in meanings.all()]
        assert min(box["width"] for box in boxes) >= 16 * 16
        assert max(box["height"] for box in boxes) <= 3 * line_height + 1
        # And the counts still fit beside it: the card shows the whole table, no sideways scroll inside it.
        scroll = page.locator("#by-outcome").locator("xpath=..")
        assert scroll.evaluate("e => e.scrollWidth - e.clientWidth") <= 0
