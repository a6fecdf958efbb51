"""/health/sync/ in a browser at 1280 and 400 px: a shop's runs, every column in view on a laptop without
scrolling the table sideways (a shop's domain wraps at its hyphen, a run's window between its two times), the
table stacked on a phone, nothing wider than the window."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from attribution.models import SyncRun
from brands.models import PlatformConnection

from .conftest import overflow, stacked

pytestmark = pytest.mark.django_db(transaction=True)

END = datetime(2026, 11, 27, 2, 0, tzinfo=UTC)


@pytest.fixture
def runs(prop):
    shops = [
        PlatformConnection.objects.create(
            brand=prop.brand,
            property=prop,
            platform=platform,
            shop_domain=domain,
            connected_via=PlatformConnection.ConnectedVia.OAUTH,
        )
        for platform, domain in [
            ("shopify", "acme-outdoor-supplies.myshopify.com"),
            ("woocommerce", "shop.acme-outdoor-supplies.example"),
        ]
    ]
    for n in range(3):
        for shop in shops:
            failed = n == 1 and shop.platform == "woocommerce"
            SyncRun.objects.create(
                brand=prop.brand,
                connection=shop,
                trigger="manual" if n == 0 else "nightly",
                window_start=END - timedelta(days=n + 1, hours=1),
                window_end=END - timedelta(days=n),
                status="failed" if failed else "done",
                started_at=END - timedelta(days=n) + timedelta(minutes=1),
                finished_at=END - timedelta(days=n) + timedelta(minutes=4),
                orders_read=240,
                recovered=2 if n == 2 else 0,
                unchanged=238,
                errors=[
                    {"at": END.isoformat(), "kind": "platform", "text": "The shop answered 503 three times."}
                ]
                if failed
                else [],
            )


def test_every_column_is_in_view_and_the_rows_stack_on_a_phone(open_page, alice, runs, width):
    page = open_page(alice, "/health/sync/", shot="sync-history")

    table = page.locator("#sync-runs")
    expect(table.locator("tbody tr")).to_have_count(6)
    expect(table.locator("tbody tr").first).to_contain_text("acme-outdoor-supplies")
    scroll = page.locator(".table-scroll:has(#sync-runs)")
    assert scroll.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    shop = table.locator("tbody tr td[data-label=Shop]").first.bounding_box()
    assert shop["width"] > 120, "a shop's domain wraps at its hyphen, not letter by letter"
    assert overflow(page) == 0
    assert stacked(table) == (width == 400)
