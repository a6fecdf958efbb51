"""/health/reconcile/ in a browser at 1280 and 400 px: a brand user uploads her order book, reads what it
found, applies it, and sees it applied; the tables stack on a phone, nothing scrolls sideways, and the
Content-Security-Policy reports no violation on the way."""

from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from attribution.models import Commission, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for
from tests.health.pages.browser.session import sign_in

from .conftest import inside_window, overflow, stacked
from .test_csp import WATCH

pytestmark = pytest.mark.django_db(transaction=True)

BOOK = (
    "order_id,amount,currency,status,code,ordered_at\n"
    "A-1,100.00,USD,completed,,2026-11-20T10:00:00Z\n"
    "A-2,80.00,USD,completed,,2026-11-20T11:00:00Z\n"
    "A-3,50.00,USD,refunded,,2026-11-21T09:00:00Z\n"
    "A-4,120.00,USD,completed,ANA10,2026-11-21T10:00:00Z\n"
    "A-5,$12.00,USD,completed,,2026-11-21T10:00:00Z\n"
)


@pytest.fixture
def acme(brand, prop, creator):
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")
    commission_for(brand, order_id="A-2", order_amount="100.00")
    commission_for(brand, order_id="A-3", order_amount="50.00")
    return brand


@pytest.fixture
def book_file(tmp_path) -> Path:
    path = tmp_path / "acme-november.csv"
    path.write_text(BOOK, encoding="utf-8")
    return path


@pytest.fixture
def watched_page(new_context, live_server, width, pytestconfig):
    """A page at `width` px signed in as `user` that records CSP violations (window.cspViolations)."""

    def open_(user):
        context = new_context(viewport={"width": width, "height": 900}, base_url=live_server.url)
        sign_in(context, user, live_server.url)
        context.add_init_script(WATCH)
        return context.new_page()

    return open_


def test_a_brand_user_uploads_reads_and_applies_her_order_book(
    watched_page, open_page, alice, acme, book_file, width
):
    page = watched_page(alice)
    page.goto(reverse("health:reconcile"))
    expect(page.get_by_role("heading", name="Upload your order book")).to_be_visible()
    expect(page.get_by_text("No reconciliation yet.")).to_be_visible()

    # Upload.
    page.get_by_label("Order book (CSV)").set_input_files(book_file)
    page.get_by_role("button", name="Upload and compare").click()

    # Results.
    expect(page.locator(".messages")).to_contain_text("5 rows read. Nothing was changed yet.")
    figures = page.locator("#figures")
    expect(figures).to_contain_text("66.7 %")
    expect(figures).to_contain_text("12.00 USD")
    expect(figures).to_contain_text("-2.00 USD")
    rows = page.locator("#rows")
    expect(rows.locator("tbody tr")).to_have_count(5)
    expect(rows).to_contain_text("Never received")
    expect(rows).to_contain_text("'$12.00' does not read as a number")
    assert overflow(page) == 0
    if width == 400:
        assert stacked(rows)
    open_page.save(page, "reconciliation")

    # One category.
    page.locator("#filter-missing").click()
    expect(rows.locator("tbody tr")).to_have_count(1)
    expect(rows).to_contain_text("A-4")
    assert Order.objects.count() == 3 and not OutcomeEvent.objects.exists()  # reading changes nothing

    # Apply.
    page.get_by_role("button", name="Apply 3 changes").click()
    expect(page.locator(".messages")).to_contain_text(
        "1 order(s) created, 1 amount(s) updated, 1 commission(s) cancelled"
    )
    expect(page.locator("#apply")).to_contain_text("Applied on")
    expect(page.get_by_role("button", name="Apply 3 changes")).to_have_count(0)
    page.locator(".categories a").first.click()  # every category again
    expect(rows).to_contain_text("Order created")
    expect(rows).to_contain_text("Commission cancelled")
    assert Reconciliation.objects.get().applied_at is not None
    assert Order.objects.filter(order_id="A-4").exists()
    assert Commission.objects.get(order__order_id="A-3").state == "cancelled"
    assert overflow(page) == 0
    open_page.save(page, "reconciliation-applied")

    # The history of runs, and the order's page with the run that recovered it.
    page.goto(reverse("health:reconcile"))
    history = page.locator("#runs")
    expect(history).to_contain_text("acme-november.csv")
    expect(history).to_contain_text("applied")
    if width == 400:
        assert stacked(history)
    assert overflow(page) == 0
    page.goto(reverse("health:order", args=["A-4"]))
    expect(page.locator("#order-book")).to_contain_text("Order created")

    assert page.evaluate("window.cspViolations") == []


def test_a_book_that_cannot_be_read_says_why(watched_page, alice, acme, tmp_path):
    bad = tmp_path / "export.csv"
    bad.write_text("id,total,currency\n1,10,USD\n", encoding="utf-8")
    page = watched_page(alice)
    page.goto(reverse("health:reconcile"))

    page.get_by_label("Order book (CSV)").set_input_files(bad)
    page.get_by_role("button", name="Upload and compare").click()

    expect(page.locator("#upload-error")).to_contain_text("The header has no order_id and no amount column.")
    assert not Reconciliation.objects.exists()
    assert overflow(page) == 0


# An order export of a WooCommerce extension whose column names no alias knows.
EXTENSION = (
    "Order No.,State,Placed On,Grand Total,Currency Code,Voucher,Customer E-mail\n"
    "A-1,Completed,2026-11-20 10:00,100.00,USD,,a@example.com\n"
    "A-4,Processing,2026-11-21 10:00,120.00,USD,ANA10,b@example.com\n"
    "A-3,Refunded,2026-11-21 09:00,50.00,USD,,c@example.com\n"
)


def test_a_refused_book_is_mapped_to_its_own_columns_and_read(
    watched_page, open_page, alice, acme, tmp_path, width
):
    export = tmp_path / "extension-orders.csv"
    export.write_text(EXTENSION, encoding="utf-8")
    page = watched_page(alice)
    page.goto(reverse("health:reconcile"))
    expect(page.locator("#map")).not_to_have_attribute("open", "")

    # Refused: the page names the missing columns and offers the file's own.
    page.get_by_label("Order book (CSV)").set_input_files(export)
    page.get_by_role("button", name="Upload and compare").click()
    expect(page.locator("#upload-error")).to_contain_text("The header has no order_id and no amount")
    column_map = page.locator("#map")
    expect(column_map).to_have_attribute("open", "")
    expect(column_map).to_contain_text("choose the file again")
    order_id = column_map.get_by_label("Order id")
    expect(order_id.locator("option")).to_have_count(8)  # "Choose a column" and the file's seven
    assert overflow(page) == 0
    assert inside_window(page, column_map.locator("select"))
    open_page.save(page, "reconcile-map")
    assert not Reconciliation.objects.exists()

    # Map, choose the file again, upload.
    order_id.select_option("Order No.")
    column_map.get_by_label("Amount").select_option("Grand Total")
    column_map.get_by_label("Currency").select_option("Currency Code")
    column_map.get_by_label("Status").select_option("State")
    column_map.get_by_label("Discount code").select_option("Voucher")
    column_map.get_by_label("Ordered at").select_option("Placed On")
    page.get_by_label("Order book (CSV)").set_input_files(export)
    page.get_by_role("button", name="Upload and compare").click()

    # Results, read from the columns picked.
    expect(page.locator(".messages")).to_contain_text("3 rows read. Nothing was changed yet.")
    expect(page.locator("#columns")).to_contain_text("amount from Grand Total (mapped)")
    expect(page.locator("#figures")).to_contain_text("12.00 USD")  # A-4, by its voucher
    rows = page.locator("#rows")
    expect(rows.locator("tbody tr")).to_have_count(3)
    expect(rows).to_contain_text("Cancelled in the book")
    assert overflow(page) == 0
    open_page.save(page, "reconciliation-mapped")
    run = Reconciliation.objects.get()
    assert (run.mapped_columns[:3], run.missing, run.cancelled_at_brand) == (
        ["order_id", "amount", "currency"],
        1,
        1,
    )

    assert page.evaluate("window.cspViolations") == []
