"""One order by two paths at the same moment (PostgreSQL): the platform's webhook and the order confirmation,
orders/create and orders/paid, or one delivery sent twice. Each request is held until all have decided and
are about to store the order, then released together: the unique keys must give one order, one commission
and one effect, whichever wins."""

import threading

import pytest
from django.db import connection
from django.test import Client

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, signature
from attribution.models import Commission, Order, PlatformDelivery
from attribution.orders import store
from health.log.models import OutcomeEvent
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect
from tests.factories import ClickFactory

ORDER = "5820398473216"


@pytest.fixture
def shop(prop):
    return connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)


def confirmation(prop, click):
    return (
        "/api/order_confirmation",
        body_of(
            {
                "orderId": ORDER,
                "orderAmount": 71.35,
                "currency": "USD",
                "page_url": f"https://{prop.host}/thank-you",
                "clickId": click.click_id,
            }
        ),
        {},
    )


def delivery(topic, webhook_id, **order):
    raw = body_of(shopify_order(**order))
    return (
        "/api/platforms/shopify",
        raw,
        {
            "HTTP_X_SHOPIFY_TOPIC": topic,
            "HTTP_X_SHOPIFY_SHOP_DOMAIN": SHOP,
            "HTTP_X_SHOPIFY_HMAC_SHA256": signature(raw, SHOPIFY_SECRET),
            "HTTP_X_SHOPIFY_WEBHOOK_ID": webhook_id,
        },
    )


def post_together(monkeypatch, requests: list, *, held=(store, "insert_in_one_statement")) -> list:
    """POST each request from its own thread and connection; the `held` step (by default the statement that
    inserts the order, and claims a delivery's id with it) starts only once every request has reached it."""
    ready = threading.Barrier(len(requests), timeout=10)
    module, name = held
    real = getattr(module, name)

    waited = threading.local()

    def when_all_are_ready(*args, **kwargs):
        if not getattr(waited, "once", False):  # a request that comes back to the step goes straight on
            waited.once = True
            ready.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, when_all_are_ready)
    answers, errors = [None] * len(requests), []

    def send(index, path, body, headers):
        try:
            answers[index] = Client().generic("POST", path, body, content_type="application/json", **headers)
        except Exception as exc:  # noqa: BLE001  (reported by the test below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert not any(thread.is_alive() for thread in threads)
    return [(answer.status_code, answer.json()["outcome"]) for answer in answers]


@pytest.mark.django_db(transaction=True)
def test_the_platform_s_order_and_the_confirmation_at_once_give_one_order_and_one_commission(
    postgres_only, monkeypatch, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)

    answers = post_together(monkeypatch, [delivery("orders/create", "w-1"), confirmation(prop, click)])

    # The confirmation is handed off whichever wins. The platform's order is answered as decided when it was
    # written: with the confirmation's click if that came first, without it (no_attribution) otherwise; the
    # confirmation then joins it and its click attributes the order.
    assert answers[1] == (200, "shopify_handoff")
    assert answers[0] in [(200, "tracked"), (200, "no_attribution")]
    order = Order.objects.get()
    assert (order.via_api, order.via_platform, order.outcome, order.click) == (True, True, "tracked", click)
    assert Commission.objects.count() == 1
    assert OutcomeEvent.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_orders_create_and_orders_paid_at_once_record_the_order_once(
    postgres_only, monkeypatch, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    cart = [("sms_click_id", click.click_id)]

    answers = post_together(
        monkeypatch,
        [
            delivery("orders/create", "w-create", note_attributes=cart),
            delivery("orders/paid", "w-paid", note_attributes=cart),
        ],
    )

    assert sorted(answers) == [(200, "already_received"), (200, "tracked")]
    assert Order.objects.count() == 1
    assert Commission.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_one_delivery_sent_twice_at_once_has_one_effect(postgres_only, monkeypatch, shop, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    twice = delivery("orders/create", "w-same", note_attributes=[("sms_click_id", click.click_id)])

    # Held where each claims the delivery's id with its order: the second waits on the first's keys, finds the
    # order taken, and is then refused by the delivery's key.
    answers = post_together(monkeypatch, [twice, twice])

    assert sorted(answers) == [(200, "redelivery"), (200, "tracked")]
    assert Order.objects.count() == 1
    assert Commission.objects.count() == 1
    assert PlatformDelivery.objects.count() == 1
