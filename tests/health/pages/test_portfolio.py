"""/health/portfolio/: every brand on one row for account managers (staff), each linking to its pages.
Brand users (alice, bob) get a 404, an anonymous visitor is sent to sign in."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.utils import timezone

from health.alerts.models import Incident
from health.log.rollup import roll_up
from tests import factories
from tests.health.alerting import log

pytestmark = pytest.mark.django_db

PAGE = "/health/portfolio/"


def rows_of(response) -> list[str]:
    html = unescape(response.content.decode())
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    rows = [row.split(">", 1)[1] for row in body.split("<tr")[1:]]
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in rows]


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def portfolio(brand, other_brand):
    """Acme: 8 live orders this week, 6 tracked, 2 with an unusable amount, and a test one; Globex: nothing
    this week, an open silence incident."""
    now = timezone.now()
    log(brand, "tracked", at=now - timedelta(days=2), n=6)
    log(brand, "invalid_order_amount", at=now - timedelta(hours=3), n=2)
    log(brand, "tracked", at=now - timedelta(hours=1), is_test=True)
    log(other_brand, "tracked", at=now - timedelta(days=20))
    roll_up(now=now)
    log(brand, "no_attribution", at=now - timedelta(minutes=30), endpoint="cancel")  # above the watermark
    Incident.objects.create(
        brand=other_brand,
        rule="silence",
        opened_at=now - timedelta(hours=1),
        counts={"last_order_at": now.isoformat(), "silent_minutes": 90, "usual_orders": 7},
    )


def test_staff_see_every_brand_with_volume_shares_last_event_and_incidents_first(staff_client, portfolio):
    response = staff_client.get(PAGE)

    assert response.status_code == 200
    globex, acme = rows_of(response)
    assert globex.startswith("Globex 0 – – 2 weeks ago none Order confirmations stopped")  # no sync yet
    # 8 order confirmations, 6 tracked (75 %); 2 of 9 live events need action (22.2 %).
    assert acme.startswith("Acme 8 75.0% 22.2% 30 minutes ago none none")
    html = response.content.decode()
    assert f'href="/health/alerts/?brand={portfolio_brand_pk(html, "Globex")}"' in html


def portfolio_brand_pk(html, name):
    return re.search(rf'href="/health/\?brand=(\d+)">{name}<', html).group(1)


def test_staff_filter_brands_by_name(staff_client, portfolio):
    assert [row.split()[0] for row in rows_of(staff_client.get(PAGE, {"q": "acm"}))] == ["Acme"]


def test_brand_users_get_a_404_and_anonymous_is_sent_to_sign_in(client, alice, bob):
    assert client.get(PAGE).status_code == 302
    for user in (alice, bob):
        client.force_login(user)
        assert client.get(PAGE).status_code == 404


def test_the_portfolio_link_is_in_the_nav_of_staff_only(staff_client, client, alice, brand):
    assert 'href="/health/portfolio/"' in staff_client.get("/health/").content.decode()
    client.force_login(alice)
    assert 'href="/health/portfolio/"' not in client.get("/health/").content.decode()


def test_the_portfolio_takes_a_fixed_number_of_queries_however_many_brands(
    staff_client, django_assert_max_num_queries
):
    for _ in range(30):
        factories.BrandFactory()
    with django_assert_max_num_queries(14):  # 12, and the recovered orders and the last syncs: one each
        assert staff_client.get(PAGE).status_code == 200


def test_a_brands_admin_page_links_to_its_health_pages(staff_client, brand):
    html = staff_client.get(f"/admin/brands/brand/{brand.pk}/change/").content.decode()

    for page in ("/health/", "/health/events/", "/health/alerts/", "/health/statements/"):
        assert f'href="{page}?brand={brand.pk}"' in html
    assert "View health" in staff_client.get("/admin/brands/brand/").content.decode()


def test_staff_see_each_brands_revenue_and_commission_of_the_week_per_currency(
    staff_client, brand, other_brand
):
    """Live attributed orders of the last 7 days (today included), cancelled ones left out, as the Creators
    page counts them (health.pages.creators.list_queries)."""
    from decimal import Decimal

    from attribution.fx import ecb, loading
    from attribution.fx.conversion import rate_day
    from attribution.models import Commission
    from tests.health.pages.creators_world import order

    ana = factories.CreatorFactory(brand=brand, name="Ana")
    now = timezone.now()
    order(brand, "W1", creator=ana, amount="100", received_at=now - timedelta(days=1))
    order(brand, "W2", creator=ana, amount="50.50", received_at=now - timedelta(hours=2))
    order(brand, "W3", creator=ana, amount="40", received_at=now - timedelta(hours=2), currency="EUR")
    order(brand, "W4", creator=ana, amount="999", received_at=now - timedelta(hours=2), is_test=True)
    order(brand, "W5", creator=ana, amount="70", received_at=now - timedelta(days=8))
    cancelled = order(brand, "W6", creator=ana, amount="30", received_at=now - timedelta(hours=1))
    loading.store([ecb.Rate(rate_day(now), "USD", Decimal("1.25"))])
    Commission.objects.filter(pk=cancelled.pk).update(state="cancelled", cancelled_at=now)

    response = staff_client.get(PAGE)

    assert response.status_code == 200
    rows = {row.brand_id: row for row in response.context["rows"]}
    acme = dict(rows[brand.pk].money)
    assert (acme["USD"].revenue, acme["USD"].commission) == (Decimal("150.50"), Decimal("15.05"))
    assert (acme["EUR"].revenue, acme["EUR"].commission) == (Decimal("40"), Decimal("4"))
    assert rows[other_brand.pk].money == []
    acme_line = next(line for line in rows_of(response) if line.startswith("Acme"))
    assert "150.50 USD 40.00 EUR" not in acme_line  # one line per currency, sorted by code
    assert "40.00 EUR 150.50 USD" in acme_line and "4.00 EUR 15.05 USD" in acme_line
    # Totalled in the portfolio's currency (REPORTING_CURRENCY, USD) at the newest rates stored: today's.
    assert rows[brand.pk].revenue == Decimal("150.50") + Decimal("50.00")  # 40 EUR × 1.25
    assert "200.50 USD" in acme_line
