"""/health/orders/<order id>: one order with its amount history, commission state and its moves, statement,
and every event about it. alice reads Acme's orders, bob (Globex) gets a 404 for them, an anonymous
visitor is sent to sign in. The order is made through the API, as a brand's site makes it."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.utils import timezone

from attribution.billing.writers import lock_due_commissions
from tests import factories
from tests.attribution.keyed import caller_of

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    assert response.status_code == 200, response.content.decode()[:800]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


@pytest.fixture
def ordered(api, prop, creator):
    """ORD-7 tracked through a click, sent twice, its total halved, then cancelled: four events."""
    click = factories.ClickFactory(property=prop, creator=creator)
    body = {
        "orderId": "ORD-7",
        "orderAmount": 100,
        "currency": "USD",
        "page_url": "https://shop.acme.example/ty",
        "clickId": click.click_id,
    }
    assert api.post("/api/order_confirmation", body).json()["outcome"] == "tracked"
    assert api.post("/api/order_confirmation", body).json()["outcome"] == "duplicate_order"
    key = caller_of(prop.brand, "dev").plaintext
    update = {"order_id": "ORD-7", "new_order_amount": 49.90, "currency": "USD"}
    assert api.post("/api/Affiliates/update", update, key=key).json()["outcome"] == "tracked"
    assert api.post("/api/Affiliates/cancel", {"order_id": "ORD-7"}, key=key).json()["success"]
    return "/health/orders/ORD-7"


def test_alice_sees_the_order_its_money_side_and_every_event(
    alice_client, ordered, django_assert_max_num_queries
):
    with django_assert_max_num_queries(14):
        response = alice_client.get(ordered)

    text = page_text(response)
    assert "Order ORD-7" in text and "100.00 USD" in text and "Click · Ana" in text
    assert "Cancelled" in text and "Pending → Cancelled Cancel request" in text
    assert "100.00 → 49.90" in text and "10.00 → 4.99" in text  # order total and commission
    html = response.content.decode()
    assert len(re.findall(r'<a href="/health/events/\d+/">Details</a>', html)) == 4
    assert "duplicate_order" in text and "Order confirmation tracked" in text and "Cancel tracked" in text
    # The moves and amount changes link to the request behind them.
    assert len(re.findall(r'<a href="/health/events/\d+/" title="[0-9a-f]+"><code>', html)) == 2


def test_each_event_is_labelled_as_its_endpoint_answered_it(alice_client, ordered):
    text = page_text(alice_client.get(ordered))

    assert "Cancel tracked Cancelled: the order's commission was cancelled" in text
    assert "Update tracked Updated: the commission follows the new total" in text
    assert "Order confirmation tracked Attributed: a commission was created" in text
    assert text.count("Attributed:") == 1


def test_bob_gets_a_404_for_acmes_order_and_anonymous_is_sent_to_sign_in(client, bob, ordered):
    assert client.get(ordered).status_code == 302
    client.force_login(bob)
    assert client.get(ordered).status_code == 404


def test_an_order_whose_confirmations_were_all_refused_shows_its_events(alice_client, api, prop):
    body = {
        "orderId": "ORD-9",
        "orderAmount": "$59.90",
        "currency": "USD",
        "page_url": "https://shop.acme.example/",
    }
    assert api.post("/api/order_confirmation", body).json()["outcome"] == "invalid_order_amount"

    text = page_text(alice_client.get("/health/orders/ORD-9"))

    assert "No order was recorded with this id" in text and "invalid_order_amount" in text


def test_an_unknown_order_id_is_a_404(alice_client, brand):
    assert alice_client.get("/health/orders/NOPE-1").status_code == 404


def test_a_test_order_is_on_its_own_page(alice_client, api, prop):
    body = {
        "orderId": "ORD-T",
        "orderAmount": 10,
        "currency": "USD",
        "page_url": "https://shop.acme.example/",
        "test": True,
    }
    api.post("/api/order_confirmation", body)

    assert alice_client.get("/health/orders/ORD-T").status_code == 404
    assert "test" in page_text(alice_client.get("/health/orders/ORD-T?ns=test"))


def test_a_locked_commission_links_its_statement(alice_client, brand, creator):
    order = factories.OrderFactory(
        brand=brand,
        order_id="ORD-L",
        received_at=timezone.now() - timedelta(days=40),
        return_window_closes_at=timezone.now() - timedelta(days=1),
    )
    factories.CommissionFactory(order=order, creator=creator, amount="10.00", rate_percent="10")
    lock_due_commissions(now=timezone.now())

    response = alice_client.get("/health/orders/ORD-L")

    assert "Pending → Locked" in page_text(response)
    assert re.search(r'href="/health/statements/\d+/"', response.content.decode())


def test_order_ids_with_slashes_and_spaces_have_a_page(alice_client, brand, creator):
    factories.OrderFactory(brand=brand, order_id="2026/11 #41", outcome="no_attribution")

    assert "2026/11 #41" in page_text(alice_client.get("/health/orders/2026/11%20%2341"))


def test_the_events_page_search_box_opens_the_order(alice_client, ordered, brand):
    assert 'action="/health/orders/"' in alice_client.get("/health/events/").content.decode()

    response = alice_client.get("/health/orders/", {"order_id": " ORD-7 "})

    assert response.status_code == 302
    assert response["Location"] == f"/health/orders/ORD-7?brand={brand.pk}"


def test_an_order_seen_by_both_paths_says_so(api, client, alice, prop, creator):
    from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
    from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify

    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    click = factories.ClickFactory(property=prop, creator=creator)
    body = {"orderId": 55, "orderAmount": 10, "currency": "USD", "page_url": "https://shop.acme.example/ty"}
    assert api.post("/api/order_confirmation", {**body, "clickId": click.click_id}).json()["success"]
    post_shopify(client, body_of(shopify_order(order_id=55)))
    client.force_login(alice)

    text = page_text(client.get("/health/orders/55"))

    assert "Seen by the order confirmation and Shopify webhook (one order, one commission)" in text
    assert "Platform order and order confirmation one order, two paths" in text
    assert "shopify_handoff" in text and "Shopify webhook" in text


def test_a_commission_created_held_says_so_in_its_history_and_statement(alice_client, brand, creator, alice):
    from attribution.models import CommissionHold
    from attribution.review.decisions import RELEASE, Who, decide
    from tests.health.reviewing import held

    commission = held(brand, creator, "HELD-1", at=timezone.now() - timedelta(hours=1))
    text = page_text(alice_client.get("/health/orders/HELD-1"))
    assert "Held for review since it was created" in text
    assert "held for review, it locks onto a statement only once released" in text

    decide(commission.pk, RELEASE, note="checked", who=Who(via=CommissionHold.Via.PAGE, user=alice))

    text = page_text(alice_client.get("/health/orders/HELD-1"))
    assert "created, Held for review Order attributed; held by a review rule" in text
    assert "Held for review → Pending" in text
