"""One creator's page (/health/creators/<id>/, docs/health.md, "A creator's page"): her days, codes, links,
holds, incidents and latest orders, against the hand-made October of creators_world, and who may see it."""

import re
from datetime import date
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from attribution.models import CreatorLink
from brands.models import DiscountCode
from health.alerts.models import Incident
from health.pages.creators import creator_queries as her
from health.pages.creators.forms import LocalPeriod
from tests import factories
from tests.health.pages import creators_world
from tests.health.pages.creators_world import OCTOBER, at

OCT = LocalPeriod("custom", date(2026, 10, 1), date(2026, 10, 31), ZoneInfo("UTC"))


@pytest.fixture
def world(brand, prop):
    return creators_world.build(brand, prop)


@pytest.fixture
def ana(world):
    return world["Ana"]


def url(creator) -> str:
    return f"/health/creators/{creator.pk}/"


def test_her_days_count_orders_and_revenue_without_cancelled_or_test_orders(ana):
    days = {d.day: d for d in her.daily(ana, OCT, is_test=False)}

    assert len(days) == 31
    assert {d.day.day: d.orders for d in days.values() if d.orders} == {
        2: 1,
        5: 1,
        8: 1,
        9: 1,
        12: 1,
        15: 1,
        16: 1,
        17: 1,
    }
    assert days[date(2026, 10, 12)].revenue == {"USD": Decimal("60")}  # its update's total
    assert days[date(2026, 10, 9)].revenue == {}  # cancelled after payment
    assert days[date(2026, 10, 15)].revenue == {"EUR": Decimal("40")}  # the test order A6 is not here
    assert sum(d.orders for d in her.daily(ana, OCT, is_test=True)) == 1


def test_her_codes_say_how_many_orders_carried_them_and_came_without_her_click(ana):
    (ana10,) = her.codes(ana, OCT, is_test=False)

    assert (ana10.code.code, ana10.carried, ana10.attributed, ana10.code_only_share) == ("ANA10", 4, 3, 75.0)
    assert ana10.revenue == {"USD": Decimal("50")}  # A3; A4 and H2 were cancelled


def test_her_links_show_the_clicks_on_their_site(ana, brand):
    CreatorLink.objects.create(
        brand=brand, creator=ana, code="ana-a", destination_url="https://shop.acme.example/a"
    )
    CreatorLink.objects.create(
        brand=brand, creator=ana, code="ana-b", destination_url="https://shop.acme.example/b"
    )

    lines = her.links(ana, OCT)

    assert sorted((line.link.code, line.clicks, line.shares_site) for line in lines) == [
        ("ana-a", 10, True),
        ("ana-b", 10, True),
    ]


def test_the_page_shows_her_figures_holds_incidents_and_latest_orders(alice_client, ana, brand, world):
    code = DiscountCode.objects.get(code="ANA10")
    Incident.objects.create(brand=brand, rule="refund_outlier", subject=str(ana.pk), opened_at=at(10, 20))
    Incident.objects.create(
        brand=brand, rule="code_leak", subject=str(code.pk), opened_at=at(10, 10), resolved_at=at(10, 11)
    )
    Incident.objects.create(
        brand=brand, rule="refund_outlier", subject=str(world["Ben"].pk), opened_at=at(10, 20)
    )

    response = alice_client.get(url(ana), OCTOBER)

    html = response.content.decode()
    assert response.status_code == 200
    assert re.search(r'id="orders-total">8<', html)
    assert "480.00" in html and "40.00" in html
    holds = re.search(r'<table class="data stack" id="holds">(.*?)</table>', html, re.S).group(1)
    assert "self_referral" in holds and "waiting" in holds
    assert "code_leak" in holds and "Rejected" in holds and "coupon site" in holds
    incidents = response.context["incidents"]
    assert [(i.rule, i.subject) for i in incidents] == [
        ("refund_outlier", str(ana.pk)),
        ("code_leak", str(code.pk)),
    ]
    latest = [order.order_id for order in response.context["latest"]]
    assert latest == ["H2", "H1", "A7", "A5", "A4", "A3", "A2", "A1", "A0"]
    assert 'href="/health/orders/A5"' in html


def test_test_orders_have_their_own_page_and_link_to_their_test_order_page(alice_client, ana):
    response = alice_client.get(url(ana), {**OCTOBER, "ns": "test"})

    assert [order.order_id for order in response.context["latest"]] == ["A6"]
    assert 'href="/health/orders/A6?ns=test"' in response.content.decode()
    assert response.context["orders_total"] == 1


def test_the_page_reads_a_fixed_number_of_queries(
    alice_client, ana, brand, prop, django_assert_max_num_queries
):
    alice_client.get(url(ana), OCTOBER)
    # 16: with the brand's reporting currency and its shop connections (docs/currencies.md).
    with django_assert_max_num_queries(16) as few:
        alice_client.get(url(ana), OCTOBER)
    for n in range(20):
        factories.DiscountCodeFactory(brand=brand, creator=ana, code=f"ANA{n}X")
        CreatorLink.objects.create(
            brand=brand, creator=ana, code=f"ana-{n}", destination_url="https://shop.acme.example/"
        )
        creators_world.order(
            brand, f"Z{n}", creator=ana, amount="10", received_at=at(10, 3), code_sent=f"ANA{n}X"
        )
    with django_assert_max_num_queries(len(few.captured_queries)):
        alice_client.get(url(ana), OCTOBER)


# --- who may see it ---------------------------------------------------------------------------------------


def test_another_brands_user_gets_a_404_for_her_page(client, bob, ana):
    client.force_login(bob)

    assert client.get(url(ana)).status_code == 404


def test_an_anonymous_visitor_is_sent_to_sign_in(client, ana):
    for path in ("/health/creators/", "/health/creators/export.csv", url(ana)):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_an_account_manager_sees_any_brands_creators(client, staff, ana, brand, other_brand):
    client.force_login(staff)

    assert client.get(url(ana)).status_code == 200
    response = client.get("/health/creators/", {"brand": brand.pk, **OCTOBER})
    assert response.status_code == 200
    assert [row.name for row in response.context["table"].rows] == ["Ana", "Ben", "Cleo"]


def test_a_user_sees_only_her_brands_creators(client, bob, ana, other_brand, brand):
    factories.CreatorFactory(brand=other_brand, name="Gina")
    client.force_login(bob)

    response = client.get("/health/creators/", OCTOBER)
    assert [row.name for row in response.context["table"].rows] == ["Gina"]
    assert "Ana" not in response.content.decode()
    assert client.get("/health/creators/", {"brand": brand.pk}).status_code == 404
    assert client.get("/health/creators/export.csv", {"brand": brand.pk}).status_code == 404


def test_a_released_hold_shows_its_outcome_and_its_commission_is_pending_again(alice_client, ana, brand):
    from attribution.models import Commission
    from attribution.review import decisions

    held = creators_world.held(
        creators_world.order(brand, "N1", creator=ana, amount="90", received_at=at(11, 2)), "click_reuse"
    )
    decisions.decide(
        held.pk, decisions.RELEASE, note="her sister, fine", who=decisions.Who(via="page"), at=at(11, 3)
    )

    response = alice_client.get(url(ana), OCTOBER)

    released = response.context["holds"][0]
    assert (released.rule, released.decision, released.note) == (
        "click_reuse",
        "released",
        "her sister, fine",
    )
    assert Commission.objects.get(pk=held.pk).state == "pending"
    assert "Released" in response.content.decode()
