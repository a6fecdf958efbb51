"""The admin's brand and developer key pages in a browser at 1280 and 400 px, as an account manager sees them."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests import factories
from tests.factories import issue_key
from tests.health.pages.browser.conftest import inside_window, overflow

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def acme_keys(brand, prop):
    old, _ = issue_key(brand, name="old key")
    old.revoke()
    issue_key(brand, name="new key")
    return old


def test_a_revoked_key_reads_revoked_with_no_green_tick(open_page, staff, acme_keys):
    page = open_page(staff, "/admin/brands/developerkey/", shot="admin-keys")

    old = page.locator("#result_list tbody tr", has_text="old key")
    expect(old.locator("td.field-status")).to_have_text(f"revoked {acme_keys.revoked_at:%Y-%m-%d}")
    expect(page.locator("#result_list tbody tr", has_text="new key").locator("td.field-status")).to_have_text(
        "active"
    )
    expect(page.locator("#result_list img")).to_have_count(0)


def test_the_empty_property_row_shows_no_time_and_the_primary_mark_is_there(
    open_page, staff, brand, acme_keys
):
    page = open_page(staff, f"/admin/brands/brand/{brand.pk}/change/", shot="admin-brand")

    saved, empty = page.locator("#properties-0"), page.locator("#properties-1")
    expect(saved.locator("td.field-created")).not_to_have_text("–")
    expect(empty.locator("td.field-created")).to_have_text("–")
    expect(saved.locator("input[name='properties-0-is_primary']")).to_be_visible()
    expect(page.locator("#developer_keys-group")).to_contain_text("revoked")


def test_brand_users_and_anonymous_visitors_get_the_admin_sign_in(open_page, alice, brand):
    factories.PropertyFactory(brand=brand, host="shop.acme.example")
    for user in (alice, None):
        page = open_page(user, f"/admin/brands/brand/{brand.pk}/change/")

        expect(page.locator("input[name=password]")).to_be_visible()
        expect(page.get_by_text("shop.acme.example")).to_have_count(0)


# --- inlines on a phone (400 px): readable without scrolling sideways -----------------------------------


def inline_overflow(page) -> int:
    """How many CSS pixels the widest inline is wider than its box (0: nothing scrolls sideways)."""
    return page.evaluate(
        "Math.max(0, ...[...document.querySelectorAll('.inline-group .tabular, .inline-group table')]"
        ".map(e => e.scrollWidth - e.clientWidth))"
    )


@pytest.fixture
def tracked_commission(brand, prop):
    """A commission with a state move and an amount change, so its page shows two history inlines."""
    commission = factories.CommissionFactory(
        order__brand=brand, order__order_id="ORD-LONG-ORDER-ID-2026-0001"
    )
    commission.move_to(
        "cancelled", at=timezone.now(), cause="cancel", request_id="5e09052101a447548c31154c10100f69"
    )
    return commission


def test_a_brand_with_its_inlines_fits_the_window(open_page, staff, brand, acme_keys, width):
    factories.MembershipFactory(brand=brand, user__username="a-brand-user-with-a-long-name")

    page = open_page(staff, f"/admin/brands/brand/{brand.pk}/change/", shot="admin-brand-inlines")

    assert (overflow(page), inline_overflow(page)) == (0, 0)
    expect(page.locator("#properties-0 input[name='properties-0-host']")).to_be_visible()
    assert inside_window(page, page.locator("#properties-0 input[name='properties-0-is_primary']"))
    assert inside_window(page, page.locator("#properties-group th"))


def test_a_commission_with_its_history_inlines_fits_the_window(open_page, staff, tracked_commission, width):
    page = open_page(
        staff,
        f"/admin/attribution/commission/{tracked_commission.pk}/change/",
        shot="admin-commission-inlines",
    )

    assert (overflow(page), inline_overflow(page)) == (0, 0)
    assert inside_window(page, page.get_by_text("5e09052101a447548c31154c10100f69"))
