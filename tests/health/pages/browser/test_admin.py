"""The admin's brand and developer key pages in a browser at 1280 and 400 px, as an account manager sees them."""

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.factories import issue_key

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
