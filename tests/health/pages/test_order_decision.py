"""The order page and the admin explain the decision (docs/health.md, "Why this outcome"): the stored trace
in plain words above the events with the winning step marked, and for account managers a what-if that
judges the same event again today and changes nothing."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.utils import timezone

from attribution.models import Commission, Order
from health.log.models import OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db

ORDER = {"orderId": "ORD-9", "orderAmount": 80, "currency": "USD", "page_url": "https://shop.acme.example/ty"}


def text_of(response) -> str:
    assert response.status_code == 200, response.content.decode()[:800]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


@pytest.fixture
def by_code_after_an_expired_click(api, prop, creator):
    """ORD-9: its click is 40 days old, its code ANA10 credits Ana."""
    click = factories.ClickFactory(
        property=prop, creator=creator, clicked_at=timezone.now() - timedelta(days=40)
    )
    code = factories.DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    body = {**ORDER, "clickId": click.click_id, "code": "ANA10"}
    assert api.post("/api/order_confirmation", body).json()["outcome"] == "tracked"
    return code


def test_the_order_page_shows_the_trace_with_the_winning_step_marked(
    alice_client, by_code_after_an_expired_click
):
    response = alice_client.get("/health/orders/ORD-9")

    text = text_of(response)
    assert "Why this outcome" in text
    assert "Creator link click click older than the window expired_click" in text
    assert "was made 40 days before the order; the window is 30 days." in text
    html = response.content.decode()
    won = re.findall(r'<li class="trace-step won">(.*?)</li>', html, re.S)
    assert len(won) == 1 and "Discount code" in won[0] and "Code ANA10 belongs to Ana" in won[0]
    assert html.index("Why this outcome") < html.index("Every event about this order")


def test_a_brand_user_gets_no_what_if(alice_client, by_code_after_an_expired_click):
    assert "What if it arrived now?" not in text_of(alice_client.get("/health/orders/ORD-9"))


def test_staff_see_the_decision_taken_today_beside_the_stored_one_and_nothing_changes(
    client, staff, by_code_after_an_expired_click
):
    code = by_code_after_an_expired_click
    code.is_blacklisted = True
    code.save()
    client.force_login(staff)
    before = (Order.objects.count(), Commission.objects.count(), OutcomeEvent.objects.count())

    text = text_of(client.get(f"/health/orders/ORD-9?brand={code.brand_id}"))

    assert "What if it arrived now?" in text
    assert "the same event would be expired_click , not tracked" in text
    assert "Code ANA10 is blacklisted: it credits no one." in text
    assert "Code ANA10 belongs to Ana." in text  # the stored decision is unchanged
    assert (Order.objects.count(), Commission.objects.count(), OutcomeEvent.objects.count()) == before
    assert Order.objects.get().trace[1]["result"] == "attributed"


def test_the_what_if_says_when_the_event_left_the_kept_log(client, staff, by_code_after_an_expired_click):
    OutcomeEvent.objects.all().delete()
    client.force_login(staff)

    text = text_of(client.get(f"/health/orders/ORD-9?brand={by_code_after_an_expired_click.brand_id}"))

    assert "The order confirmation that created this order is no longer in the kept log." in text


def test_a_direct_order_says_nothing_could_attribute_it(api, alice_client, prop):
    api.post("/api/order_confirmation", ORDER)

    text = text_of(alice_client.get("/health/orders/ORD-9"))

    assert "No click id, code or shopper email came with this order" in text


def test_the_outcome_logs_admin_links_the_order_with_its_trace(client, staff, by_code_after_an_expired_click):
    client.force_login(staff)
    event = OutcomeEvent.objects.get(order_id="ORD-9")

    response = client.get(f"/admin/health/outcomeevent/{event.pk}/change/")

    text = text_of(response)
    assert "Order and its decision:" in text
    assert "Creator link click: click older than the window" in text
    assert "Discount code: credited the creator (code ANA10 belongs to Ana)" in text
    assert f"/admin/attribution/order/{Order.objects.get().pk}/change/" in response.content.decode()


def test_the_orders_admin_page_shows_its_trace(client, staff, by_code_after_an_expired_click):
    client.force_login(staff)

    text = text_of(client.get(f"/admin/attribution/order/{Order.objects.get().pk}/change/"))

    assert "Decision trace:" in text and "code ANA10 belongs to Ana" in text
