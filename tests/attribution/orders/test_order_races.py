"""Two requests for the same order at the same moment (the decision order's duplicate step, on PostgreSQL).

Both requests are held until each has made its decision and is about to store the order, then
released together: a "check, then insert" implementation would store the order twice. The unique
constraint on (brand, order id, namespace) must let exactly one through.
"""

import threading

import pytest
from django.db import connection
from django.test import Client

from attribution.models import Commission, Order
from attribution.orders import store
from health.log.models import OutcomeEvent
from tests.factories import ClickFactory

URL = "/api/order_confirmation"


def post_together(monkeypatch, bodies: list[dict]) -> list:
    """POST each body from its own thread and connection; the inserts start only once all are ready."""
    ready = threading.Barrier(len(bodies), timeout=10)
    real_write = store.write_order

    def write_when_all_are_ready(*args, **kwargs):
        ready.wait()
        return real_write(*args, **kwargs)

    monkeypatch.setattr(store, "write_order", write_when_all_are_ready)
    responses = [None] * len(bodies)
    errors = []

    def send(index, body):
        try:
            responses[index] = Client().post(URL, body, content_type="application/json")
        except Exception as exc:  # noqa: BLE001  (reported by the test below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i, body)) for i, body in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert not any(thread.is_alive() for thread in threads)
    return responses


def outcomes(responses) -> list[tuple[int, str]]:
    return sorted((r.status_code, r.json()["outcome"]) for r in responses)


@pytest.mark.django_db(transaction=True)
def test_two_racing_confirmations_of_one_order_store_it_once(postgres_only, monkeypatch, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    body = {
        "orderId": "A-1001",
        "orderAmount": "59.90",
        "currency": "USD",
        "page_url": "https://shop.acme.example/checkout/thank-you",
        "clickId": click.click_id,
    }

    responses = post_together(monkeypatch, [body, body])

    assert outcomes(responses) == [(200, "tracked"), (400, "duplicate_order")]
    assert Order.objects.count() == 1
    assert Commission.objects.count() == 1
    assert sorted(OutcomeEvent.objects.values_list("outcome", "order_id", "brand_id")) == [
        ("duplicate_order", "A-1001", prop.brand_id),
        ("tracked", "A-1001", prop.brand_id),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_racing_integer_and_string_order_id_are_still_one_order(postgres_only, monkeypatch, prop):
    body = {"orderAmount": 59.90, "currency": "USD", "page_url": "https://shop.acme.example/thanks"}

    responses = post_together(monkeypatch, [{**body, "orderId": 123}, {**body, "orderId": " 123 "}])

    assert outcomes(responses) == [(200, "no_attribution"), (400, "duplicate_order")]
    assert list(Order.objects.values_list("order_id", flat=True)) == ["123"]


@pytest.mark.django_db(transaction=True)
def test_a_racing_test_and_live_order_with_one_id_are_both_stored(postgres_only, monkeypatch, prop):
    body = {
        "orderId": "A-1001",
        "orderAmount": 59.90,
        "currency": "USD",
        "page_url": "https://shop.acme.example/",
    }

    responses = post_together(monkeypatch, [{**body, "test": True}, {**body, "test": False}])

    assert outcomes(responses) == [(200, "no_attribution"), (200, "no_attribution")]
    assert sorted(Order.objects.values_list("is_test", flat=True)) == [False, True]
