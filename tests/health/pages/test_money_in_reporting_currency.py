"""The pages a brand reads money on total in its reporting currency, at each commission's locked rate, with
each currency as paid one click away and what has no rate apart (docs/currencies.md, docs/health.md)."""

import csv
import io

import pytest

from tests import factories
from tests.attribution.fx.conftest import FRIDAY_NOON, rates  # noqa: F401  (the fixture)
from tests.health.pages import creators_world

OCTOBER = {"period": "custom", "from": "2026-10-01", "to": "2026-10-31"}
CREATORS = "/health/creators/"


@pytest.fixture
def ana(rates, brand):  # noqa: F811
    """Ana's October: 100 USD and 200 EUR on Friday the 30th (10 % each), and 300 AED, which has no rate."""
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    creators_world.order(brand, "U1", creator=ana, amount="100", received_at=FRIDAY_NOON)
    creators_world.order(brand, "E1", creator=ana, amount="200", received_at=FRIDAY_NOON, currency="EUR")
    creators_world.order(brand, "D1", creator=ana, amount="300", received_at=FRIDAY_NOON, currency="AED")
    return ana


def cell(html: str, creator_id: int, key: str) -> str:
    import re

    row = "".join(re.findall(rf'<tr data-creator="{creator_id}"[^>]*>(.*?)</tr>', html, re.S))
    return re.search(rf'data-key="{re.escape(key)}"[^>]*>([^<]*)<', row).group(1)


def test_the_creators_page_totals_in_usd_with_the_rates_used_and_the_aed_apart(alice_client, ana):
    html = alice_client.get(CREATORS, OCTOBER).content.decode()

    # 100 + 200 × 1.1172 = 323.44 USD of revenue; 10.00 + 22.34 USD pending.
    assert cell(html, ana.pk, "revenue@USD") == "323.44"
    assert cell(html, ana.pk, "pending@USD") == "32.34"
    assert 'id="revenue-total">323.44 <span class="unit">USD</span>' in html
    assert "(rates published 2026-10-30)" in html
    assert "1 commission in AED, with no rate into USD" in html
    assert "Show each currency as paid" in html


def test_each_currency_as_paid_is_one_click_away(alice_client, ana):
    html = alice_client.get(CREATORS, {**OCTOBER, "money": "each"}).content.decode()

    assert cell(html, ana.pk, "revenue:EUR") == "200.00"
    assert cell(html, ana.pk, "revenue:AED") == "300.00"
    assert "Show in USD" in html


def test_the_csv_has_the_reporting_columns_and_what_was_not_converted(alice_client, ana):
    response = alice_client.get(f"{CREATORS}export.csv", OCTOBER)

    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    line = next(r for r in rows if r["creator"] == "Ana")
    assert (line["revenue_in_USD"], line["pending_in_USD"]) == ("323.44", "32.34")
    assert line["not_converted_commissions"] == "AED:1"
    assert (line["revenue_EUR"], line["revenue_AED"]) == ("200.00", "300.00")


def test_her_page_totals_her_revenue_in_usd(alice_client, ana):
    html = alice_client.get(f"{CREATORS}{ana.pk}/", OCTOBER).content.decode()

    assert 'id="revenue-total">323.44 <span class="unit">USD</span>' in html
    assert "1 order with no rate not counted" in html
    assert "200.00 EUR" in html  # each currency as paid, under the total


def test_the_overview_says_the_periods_commission_in_usd(alice_client, ana):
    html = alice_client.get(
        "/health/", {"period": "custom", "from": "2026-10-24", "to": "2026-10-31"}
    ).content.decode()

    assert '32.34 <span class="unit">USD</span>' in html
    assert "not counted, no rate: 1 in AED" in html


def test_a_brand_reporting_in_gbp_reads_gbp(alice_client, ana, brand):
    brand.reporting_currency = "GBP"
    brand.save()
    # Its commissions stay locked in USD, the currency it read when they were created: shown apart.
    creators_world.order(brand, "G1", creator=ana, amount="50", received_at=FRIDAY_NOON, currency="GBP")

    html = alice_client.get(CREATORS, OCTOBER).content.decode()

    assert cell(html, ana.pk, "revenue@GBP") == "50.00"
    assert "in AED" in html and "in EUR" in html and "in USD" in html


def test_another_brands_user_and_an_anonymous_visitor_see_none_of_it(client, bob, ana):
    client.force_login(bob)
    assert "323.44" not in client.get(CREATORS, OCTOBER).content.decode()
    client.logout()
    assert client.get(CREATORS, OCTOBER).status_code == 302
