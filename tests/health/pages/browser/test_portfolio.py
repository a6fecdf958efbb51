"""/health/portfolio/ in a browser at 1280 and 400 px: every value of every brand's row is on screen, no column
behind a sideways scroll at 1280 px and no value pushed off a phone's screen, the last sync among them."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from attribution.models import SyncRun
from brands.models import PlatformConnection
from health.alerts.models import Incident
from tests.health.pages.browser.conftest import inside_window, overflow

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def busy_brand(brand, prop, make_event):
    """A brand with everything a row can show: an event, a long incident title, a shop's last sync."""
    from attribution.outcomes import Outcome

    make_event(brand, Outcome.TRACKED, order_id="1042")
    connection = PlatformConnection(
        brand=brand,
        property=prop,
        platform="shopify",
        shop_domain="a-rather-long-shop-name-for-a-brand.myshopify.com",
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
    )
    connection.set_credential("shpat_token")
    connection.save()
    end = timezone.now() - timedelta(hours=1)
    SyncRun.objects.create(
        brand=brand,
        connection=connection,
        trigger="nightly",
        window_start=end - timedelta(days=1),
        window_end=end,
        status="done",
        recovered=12,
        finished_at=end,
    )
    Incident.objects.create(
        brand=brand,
        rule=Incident.Rule.WEBHOOK_REMOVED,
        subject=str(connection.pk),
        opened_at=end,
        counts={"shop": connection.shop_domain, "title": "Shopify", "missing": ["orders/paid"]},
    )
    return brand


def test_every_value_of_a_row_is_on_screen(open_page, staff, busy_brand, width):
    page = open_page(staff, "/health/portfolio/", shot="portfolio")

    assert overflow(page) == 0
    row = page.locator("table.portfolio tbody tr").first
    expect(row).to_contain_text(busy_brand.name)
    expect(row.locator('td[data-label="Last sync"]')).to_contain_text("12 recovered")
    for label in ("Commission", "Pages", "Open incidents", "Last sync", "Revenue"):
        cell = row.locator(f'td[data-label="{label}"]')
        expect(cell).to_be_visible()
        assert inside_window(page, cell), label
    # Nothing inside the table is cut off by its scroll box either.
    scroll = page.locator(".table-scroll").first
    assert scroll.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    assert inside_window(page, row.locator("td a, td span, td strong"))
