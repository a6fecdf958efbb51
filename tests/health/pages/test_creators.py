"""The Creators page and its CSV (docs/health.md, "Creators"): every figure of every creator against the
hand-made October of tests/health/pages/creators_world.py, live and test apart, in the reader's days."""

import csv
import io
from decimal import Decimal

import pytest

from attribution.models import Commission
from brands.models import UserSettings
from health.pages.creators.forms import LocalPeriod
from health.pages.creators.list_queries import creator_table
from tests import factories
from tests.health.pages import creators_world
from tests.health.pages.creators_world import OCTOBER, at

URL = "/health/creators/"


@pytest.fixture
def world(brand, prop):
    return creators_world.build(brand, prop)


def october(zone="UTC"):
    from datetime import date
    from zoneinfo import ZoneInfo

    return LocalPeriod("custom", date(2026, 10, 1), date(2026, 10, 31), ZoneInfo(zone))


def rows_by_name(table):
    return {row.name: row for row in table.rows}


def test_it_counts_each_creators_orders_clicks_and_paths(brand, world):
    table = creator_table(brand, october(), is_test=False)
    ana, ben, cleo = (rows_by_name(table)[n] for n in ("Ana", "Ben", "Cleo"))

    # 4 of her 8 orders came by a click of her 10: the codes' and the shopper's orders are no click's.
    assert (ana.clicks, ana.counts.orders, ana.conversion) == (10, 8, 40.0)
    c = ana.counts
    # The review figures' rate: A4 (cancelled after payment) of her 7 orders; H2, which a reviewer rejected, is
    # not a refund and is not counted (attribution.review.figures).
    assert (c.judged, c.cancelled) == (7, 1)
    assert round(c.refund_rate, 1) == 14.3
    assert (c.by_click, c.by_code, c.by_shopper) == (4, 3, 1)
    assert (c.with_code, c.code_only) == (4, 3)
    assert c.code_only_share == 75.0
    assert (c.new, c.returning) == (7, 1)
    assert (ben.clicks, ben.counts.orders, ben.conversion) == (0, 1, None)
    assert ben.counts.refund_rate == 0
    assert (cleo.clicks, cleo.counts.orders, cleo.counts.refund_rate, cleo.money) == (0, 0, None, {})


def test_it_sums_money_per_currency_with_cancels_after_payment_and_updates(brand, world):
    table = creator_table(brand, october(), is_test=False)
    ana = rows_by_name(table)["Ana"]

    usd, eur = ana.money["USD"], ana.money["EUR"]
    # A4 was paid, then cancelled: out of revenue, earned and paid. A5's total is its update's (60). H1 is held;
    # H2 was held, then rejected.
    assert (usd.revenue, usd.standing, usd.average) == (Decimal("480"), 5, Decimal("96"))
    assert (usd.earned, usd.pending, usd.held, usd.paid) == (30, 11, 7, 10)
    assert (eur.revenue, eur.average, eur.earned, eur.pending) == (
        Decimal("40"),
        Decimal("40"),
        0,
        Decimal("4"),
    )
    assert table.currencies == ["EUR", "USD"]


def test_its_totals_are_the_brands(brand, world):
    totals = creator_table(brand, october(), is_test=False).totals

    assert (totals.clicks, totals.counts.orders) == (10, 9)
    assert (totals.counts.judged, totals.counts.cancelled) == (8, 1)
    assert totals.counts.refund_rate == 12.5
    assert totals.money["USD"].revenue == Decimal("780")
    assert totals.money["USD"].held == Decimal("7")
    assert totals.money["USD"].pending == Decimal("41")
    assert totals.money["EUR"].revenue == Decimal("40")


def test_test_orders_are_counted_apart_and_without_clicks(brand, world):
    table = creator_table(brand, october(), is_test=True)
    ana = rows_by_name(table)["Ana"]

    assert (ana.clicks, ana.counts.orders, ana.conversion) == (None, 1, None)
    assert ana.money["USD"].revenue == Decimal("999")
    assert ana.money["USD"].pending == Decimal("99.90")
    assert table.totals.counts.orders == 1
    assert (ana.counts.judged, ana.counts.cancelled, ana.counts.with_code) == (
        1,
        0,
        0,
    )  # the review figures too


def test_the_period_is_made_of_the_readers_days(brand, prop, world):
    ana = world["Ana"]
    # Sep 30, 22:30 UTC is Oct 1, 00:30 in Berlin; Oct 31, 23:30 UTC is already November there.
    creators_world.order(brand, "EARLY", creator=ana, amount="10", received_at=at(9, 30, 22, 30))
    creators_world.order(brand, "LATE", creator=ana, amount="10", received_at=at(10, 31, 23, 30))

    in_utc = rows_by_name(creator_table(brand, october("UTC"), is_test=False))["Ana"]
    in_berlin = rows_by_name(creator_table(brand, october("Europe/Berlin"), is_test=False))["Ana"]

    assert in_utc.counts.orders == 8 + 1  # LATE
    assert in_berlin.counts.orders == 8 + 1  # EARLY; the Sep 30 23:00 UTC click too
    assert in_berlin.clicks == 11


def test_an_order_counts_in_the_period_its_commission_was_created_in(brand, world):
    """A platform's order joined by its order confirmation gets its commission at the second arrival
    (attribution.orders.joins): the orders, money and refund figures all count it from then."""
    joined = creators_world.order(
        brand, "J1", creator=world["Ana"], amount="10", received_at=at(9, 30, 23, 59)
    )
    Commission.objects.filter(pk=joined.pk).update(created_at=at(10, 1, 0, 1))

    ana = rows_by_name(creator_table(brand, october(), is_test=False))["Ana"]

    assert (ana.counts.orders, ana.counts.judged) == (8 + 1, 7 + 1)
    assert ana.money["USD"].revenue == Decimal("490")


# --- the page --------------------------------------------------------------------------------------------


def cells(html: str, creator_id, key: str) -> str:
    """The text of one figure's cell in the page's table."""
    import re

    row = "".join(re.findall(rf'<tr data-creator="{creator_id}"[^>]*>(.*?)</tr>', html, re.S))
    return re.search(rf'data-key="{re.escape(key)}"[^>]*>([^<]*)<', row).group(1)


def test_the_page_shows_each_figure_in_its_column(alice_client, world):
    response = alice_client.get(URL, {**OCTOBER, "money": "each"})  # each currency as paid

    html = response.content.decode()
    ana = world["Ana"].pk
    assert response.status_code == 200
    expected = {
        "clicks": "10",
        "orders": "8",
        "conversion": "40.0%",
        "revenue:USD": "480.00",
        "average:USD": "96.00",
        "earned:USD": "30.00",
        "pending:USD": "11.00",
        "held:USD": "7.00",
        "paid:USD": "10.00",
        "revenue:EUR": "40.00",
        "refund_rate": "14.3%",
        "by_click": "50.0%",
        "by_code": "37.5%",
        "by_shopper": "12.5%",
        "code_only_share": "75.0%",
        "new": "7",
        "returning": "1",
    }
    assert {key: cells(html, ana, key) for key in expected} == expected
    assert "12.5%" in html  # the brand's rate
    assert f'href="/health/creators/{ana}/?period=custom&amp;from=2026-10-01&amp;to=2026-10-31"' in html


def test_it_sorts_by_any_column_with_creators_without_a_value_last(alice_client, world):
    def order_of(params):
        html = alice_client.get(URL, {**OCTOBER, **params}).content.decode()
        return sorted(world, key=lambda name: html.index(f'data-creator="{world[name].pk}"'))

    assert order_of({}) == ["Ana", "Ben", "Cleo"]  # orders, most first
    assert order_of({"sort": "revenue:USD", "dir": "asc"}) == ["Cleo", "Ben", "Ana"]
    assert order_of({"sort": "conversion"}) == ["Ana", "Ben", "Cleo"]
    assert order_of({"sort": "conversion", "dir": "asc"}) == ["Ana", "Ben", "Cleo"]  # no clicks: last
    assert order_of({"sort": "name", "dir": "desc"}) == ["Cleo", "Ben", "Ana"]
    assert order_of({"sort": "nonsense"}) == ["Ana", "Ben", "Cleo"]


def test_a_bad_period_falls_back_to_the_last_30_days_and_says_so(alice_client, world):
    response = alice_client.get(URL, {"from": "2026-10-31", "to": "2026-10-01"})

    assert response.status_code == 200
    assert "Showing the last 30 days instead." in response.content.decode()
    assert response.context["period"].key == "30d"


def test_the_readers_time_zone_sets_the_days(alice, alice_client, world, brand):
    UserSettings.objects.create(user=alice, time_zone="Europe/Berlin")
    alice_client.force_login(alice)  # the zone is put in the session at sign-in
    creators_world.order(brand, "EARLY", creator=world["Ana"], amount="10", received_at=at(9, 30, 22, 30))

    response = alice_client.get(URL, OCTOBER)

    assert cells(response.content.decode(), world["Ana"].pk, "orders") == "9"
    assert "(Europe/Berlin)" in response.content.decode()


def test_the_page_reads_a_fixed_number_of_queries_however_many_creators(
    alice_client, brand, prop, world, django_assert_num_queries
):
    alice_client.get(URL, OCTOBER)  # session and user settings warm
    # Session, user, brands; the brand's reporting currency and its shop connections, the creators, their
    # clicks, the commissions (counts, money, money converted and refund counts in one pass), the codes and
    # the orders that sent them.
    with django_assert_num_queries(10):
        alice_client.get(URL, OCTOBER)
    for n in range(30):
        creator = factories.CreatorFactory(brand=brand, name=f"Z{n}")
        factories.ClickFactory(property=prop, creator=creator, clicked_at=at(10, 3))
        creators_world.order(brand, f"Z{n}", creator=creator, amount="10", received_at=at(10, 3))
    with django_assert_num_queries(10):
        alice_client.get(URL, OCTOBER)


def test_the_table_is_five_queries_live_and_four_in_the_test_namespace(
    brand, world, django_assert_num_queries
):
    # The brand's shop connections (its reporting currency), the creators, the clicks, the commissions, the
    # codes, their orders.
    with django_assert_num_queries(6):
        creator_table(brand, october(), is_test=False)
    with django_assert_num_queries(5):  # clicks are neither test nor live
        creator_table(brand, october(), is_test=True)


# --- the CSV ---------------------------------------------------------------------------------------------


def test_the_csv_has_a_line_per_creator_and_the_totals(alice_client, world):
    response = alice_client.get(URL + "export.csv", OCTOBER)

    text = b"".join(response.streaming_content).decode("utf-8-sig")
    lines = {line["creator"]: line for line in csv.DictReader(io.StringIO(text))}
    assert response["Content-Disposition"].startswith(
        'attachment; filename="creators-acme-live-20261001-20261031'
    )
    assert list(lines) == ["Ana", "Ben", "Cleo", "All creators"]
    ana = lines["Ana"]
    assert (ana["clicks"], ana["orders"], ana["conversion_percent"]) == ("10", "8", "40.0")
    assert (
        ana["refund_counted_orders"],
        ana["cancelled_or_refunded"],
        ana["refund_rate_percent"],
        ana["brand_refund_rate_percent"],
    ) == ("7", "1", "14.3", "12.5")
    assert (ana["with_code"], ana["code_only"], ana["code_only_share_percent"]) == ("4", "3", "75.0")
    assert (ana["revenue_USD"], ana["average_USD"], ana["earned_USD"], ana["paid_USD"]) == (
        "480.00",
        "96.00",
        "30.00",
        "10.00",
    )
    assert (ana["revenue_EUR"], ana["pending_EUR"], ana["time_zone"], ana["namespace"]) == (
        "40.00",
        "4.00",
        "UTC",
        "live",
    )
    assert (lines["Ben"]["conversion_percent"], lines["Cleo"]["revenue_USD"]) == ("", "0.00")
    assert lines["All creators"]["revenue_USD"] == "780.00"


def test_the_csv_of_test_orders(alice_client, world):
    response = alice_client.get(URL + "export.csv", {**OCTOBER, "ns": "test"})

    lines = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    ana = next(line for line in lines if line["creator"] == "Ana")
    assert (ana["clicks"], ana["orders"], ana["revenue_USD"], ana["namespace"]) == ("", "1", "999.00", "test")


def test_a_creator_cancelled_at_over_twice_the_brands_rate_is_marked(alice_client, brand):
    from attribution.models import Commission

    ana = factories.CreatorFactory(brand=brand, name="Ana")
    ben = factories.CreatorFactory(brand=brand, name="Ben")
    for n in range(10):
        made = creators_world.order(brand, f"A{n}", creator=ana, amount="10", received_at=at(10, 5))
        if n < 4:
            Commission.objects.filter(pk=made.pk).update(state="cancelled", cancelled_at=at(10, 6))
    for n in range(30):
        creators_world.order(brand, f"B{n}", creator=ben, amount="10", received_at=at(10, 5))

    response = alice_client.get(URL, OCTOBER)

    html = response.content.decode()
    assert cells(html, ana.pk, "refund_rate") == "40.0%"  # the brand's: 4 of 40, 10%
    assert f'<tr data-creator="{ana.pk}" class="needs-action">' in html
    assert f'<tr data-creator="{ben.pk}">' in html


def test_a_brand_without_creators_says_so(alice_client):
    response = alice_client.get(URL)

    assert response.status_code == 200
    assert "The brand has no creators yet." in response.content.decode()


def test_a_large_program_shows_the_first_hundred_by_the_sort_and_all_on_asking(alice_client, brand, prop):
    for n in range(105):
        creator = factories.CreatorFactory(brand=brand, name=f"C{n:03d}")
        for k in range(n % 3):
            creators_world.order(brand, f"O{n}-{k}", creator=creator, amount="10", received_at=at(10, 3))

    page = alice_client.get(URL, OCTOBER)
    everyone = alice_client.get(URL, {**OCTOBER, "all": "1"})

    assert len(page.context["counts_table"]["rows"]) == 100
    assert page.context["counts_table"]["rows"][0]["row"].counts.orders == 2  # most orders first
    assert page.context["table"].totals.counts.orders == 35 * 2 + 35 * 1  # the totals count everyone
    assert "The first 100 of 105 creators" in page.content.decode()
    assert len(everyone.context["counts_table"]["rows"]) == 105
    assert "Show all" not in everyone.content.decode()
