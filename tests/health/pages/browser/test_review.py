"""/health/review/ in a browser at 1280 and 400 px: a brand user reads a hold's evidence, releases one from
its card with a note, ticks two and rejects them in bulk, and reads her decisions; nothing scrolls sideways
and the decisions table stacks on a phone."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from attribution.models import Commission
from tests import factories
from tests.health.reviewing import held

from .conftest import inside_window, overflow, stacked

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queue(brand, creator):
    now = timezone.now()
    bea = factories.CreatorFactory(brand=brand, name="Bea")
    held(
        brand,
        creator,
        "A-1",
        at=now - timedelta(days=3),
        detail="the shopper's email is Ana's own (hashed match)",
    )
    held(
        brand,
        creator,
        "A-2",
        at=now - timedelta(days=2),
        rules=("disposable_email",),
        detail="the shopper's email is at mailinator.com, a throwaway-address domain",
    )
    held(
        brand,
        bea,
        "B-1-with-a-long-order-id-from-a-platform-0123456789",
        at=now - timedelta(days=1),
        rules=("code_leak",),
        detail="code BEA5: the order came without a click from Bea, referred by retailmenot.com, a coupon or "
        "deal site on the brand's list",
    )


def states() -> dict:
    return dict(Commission.objects.values_list("order__order_id", "state"))


def test_a_brand_user_releases_one_hold_and_rejects_two_in_bulk(open_page, alice, brand, queue, width):
    page = open_page(alice, "/health/review/", shot="review")

    expect(page.locator(".eyebrow")).to_have_text("Review")
    cards = page.locator("article.held")
    expect(cards).to_have_count(3)
    expect(cards.first).to_contain_text("The shopper's email is Ana's own (hashed match)")
    expect(cards.first.get_by_role("link", name="Order A-1")).to_have_attribute(
        "href", f"/health/orders/A-1?brand={brand.pk}"
    )
    assert overflow(page) == 0
    assert inside_window(page, page.locator("article.held button"))

    # One at a time, from its card, with a note.
    first = cards.filter(has_text="A-1")
    first.get_by_label("Note for order A-1").fill("Her sister's order, agreed with the shop")
    first.get_by_role("button", name="Release", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("Released 1 held commission (A-1)")
    expect(page.locator("article.held")).to_have_count(2)
    assert states()["A-1"] == "pending"

    # In bulk: tick the two left, one note, reject.
    page.get_by_label("Tick order A-2").check()
    page.get_by_label("Tick order B-1-with-a-long-order-id-from-a-platform-0123456789").check()
    page.get_by_label("Note for the ticked commissions").fill("Not earned")
    page.get_by_role("button", name="Reject ticked").click()
    expect(page.locator(".messages")).to_contain_text("Rejected 2 held commissions")
    expect(page.get_by_text("Nothing to review")).to_be_visible()
    assert (states()["A-2"], states()["B-1-with-a-long-order-id-from-a-platform-0123456789"]) == (
        "cancelled",
        "cancelled",
    )

    decided = page.locator("table.decided")
    expect(decided.locator("tbody tr")).to_have_count(3)
    expect(decided).to_contain_text("Her sister's order, agreed with the shop")
    expect(decided).to_contain_text("alice")
    assert overflow(page) == 0
    assert stacked(decided) == (width < 640)
    open_page.save(page, "review-decided")


def test_the_filters_narrow_the_queue(open_page, alice, queue):
    page = open_page(alice, "/health/review/")

    page.get_by_label("Rule").select_option("code_leak")
    page.get_by_role("button", name="Apply filters").click()

    expect(page.locator("article.held")).to_have_count(1)
    expect(page.locator("article.held")).to_contain_text("retailmenot.com")
    assert overflow(page) == 0


def test_the_settings_page_reads_on_both_widths(open_page, alice, brand):
    page = open_page(alice, "/health/review/settings/", shot="review-settings")

    page.locator("input[name=review_days]").fill("3")
    page.get_by_role("button", name="Save review settings").click()

    expect(page.locator(".messages")).to_contain_text("Review settings saved")
    assert overflow(page) == 0
