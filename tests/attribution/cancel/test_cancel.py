"""POST /api/Affiliates/cancel (docs/api.md, "Cancel"; docs/decisions.md)."""

import pytest
from django.db import DatabaseError

from attribution.models import Commission
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import CANCEL, commission_for, fresh, the_one_event
from tests.faults import failing_writes_to

PENDING, CANCELLED = Commission.State.PENDING, Commission.State.CANCELLED


def test_it_cancels_the_commission_of_the_keys_own_order(client, alice, commission):
    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "The commission of order A-1 was cancelled.",
    }
    event = the_one_event(response, endpoint="cancel")
    cancelled = fresh(commission)
    assert cancelled.state == CANCELLED
    assert cancelled.cancelled_at == event.received_at
    assert cancelled.amount == commission.amount
    assert (event.outcome, event.brand_id, event.order_id, event.is_test, event.key_prefix) == (
        "tracked",
        alice.brand.id,
        "A-1",
        False,
        alice.key.prefix,
    )


def test_it_answers_order_not_found_for_an_order_never_received(client, alice):
    response = client.post(CANCEL, {"order_id": "NEVER-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "order_not_found",
        "message": "No commission for live order NEVER-1 (usually the order was not attributed).",
    }
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.order_id) == ("order_not_found", alice.brand.id, "NEVER-1")


def test_it_answers_order_not_found_for_an_order_received_without_a_commission(client, alice, brand):
    factories.OrderFactory(brand=brand, order_id="N-1", outcome="no_attribution")

    response = client.post(CANCEL, {"order_id": "N-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 200
    assert response.json()["outcome"] == "order_not_found"
    assert not Commission.objects.exists()
    assert the_one_event(response, endpoint="cancel").outcome == "order_not_found"


def test_it_answers_already_cancelled_for_a_second_cancel(client, alice, commission):
    first = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)
    cancelled_at = fresh(commission).cancelled_at
    OutcomeEvent.objects.all().delete()

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert first.json()["outcome"] == "tracked"
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "already_cancelled",
        "message": "The commission of order A-1 was already cancelled.",
    }
    assert fresh(commission).state == CANCELLED
    assert fresh(commission).cancelled_at == cancelled_at
    assert the_one_event(response, endpoint="cancel").outcome == "already_cancelled"


@pytest.mark.parametrize(
    "order_id", [123, "123", " 123 ", 123.0], ids=["integer", "string", "padded", "whole float"]
)
def test_it_finds_an_order_by_its_id_as_a_string_or_an_integer(client, alice, brand, order_id):
    commission = commission_for(brand, order_id="123")

    response = client.post(CANCEL, {"order_id": order_id}, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert the_one_event(response, endpoint="cancel").order_id == "123"


INVALID_BODIES = {
    "no order_id": {},
    "order_id null": {"order_id": None},
    "order_id empty": {"order_id": ""},
    "order_id blank": {"order_id": "   "},
    "order_id an object": {"order_id": {"id": "A-1"}},
    "order_id an array": {"order_id": ["A-1"]},
    "order_id a boolean": {"order_id": True},
    "order_id a fraction": {"order_id": 12.5},
    "order_id too long": {"order_id": "A" * 256},
    "test not a boolean": {"order_id": "A-1", "test": "yes"},
    "a JSON array": [{"order_id": "A-1"}],
    "a JSON string": '"A-1"',
}


@pytest.mark.parametrize("body", INVALID_BODIES.values(), ids=INVALID_BODIES.keys())
def test_it_answers_invalid_params_for_a_missing_or_unusable_order_id(client, alice, commission, body):
    response = client.post(CANCEL, body, content_type="application/json", **alice.headers)

    assert response.status_code == 400
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "invalid_params"
    assert isinstance(response.json()["error"], str) and response.json()["error"]
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix) == (
        "invalid_params",
        alice.brand.id,
        alice.key.prefix,
    )


@pytest.mark.parametrize("raw", ["not json", "{'order_id': 'A-1'}", "", '{"order_id": "A-1"'])
def test_it_answers_invalid_params_for_a_body_that_is_not_json(client, alice, commission, raw):
    response = client.post(CANCEL, raw, content_type="application/json", **alice.headers)

    assert response.status_code == 400
    assert response.json()["outcome"] == "invalid_params"
    assert response.json()["success"] is False
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id) == ("invalid_params", alice.brand.id)


def test_a_rejected_test_cancel_is_counted_as_a_test_event(client, alice):
    response = client.post(
        CANCEL, {"order_id": {"id": 1}, "test": True}, content_type="application/json", **alice.headers
    )

    assert response.json()["outcome"] == "invalid_params"
    assert the_one_event(response, endpoint="cancel").is_test is True


def test_it_answers_handler_error_when_processing_fails_unexpectedly(client, alice, commission, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("lookup exploded")

    monkeypatch.setattr("attribution.orders.changes._read", broken)

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["success"] is True
    assert response.json()["outcome"] == "handler_error"
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.order_id) == ("handler_error", alice.brand.id, "A-1")


def test_it_answers_handler_error_when_saving_the_cancel_fails(client, alice, commission):
    with failing_writes_to("attribution_commissionstatechange", DatabaseError):
        response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert response.json()["outcome"] == "handler_error"
    assert fresh(commission).state == PENDING
    assert fresh(commission).cancelled_at is None
    assert the_one_event(response, endpoint="cancel").outcome == "handler_error"


def test_it_answers_on_the_path_with_a_trailing_slash(client, alice, commission):
    response = client.post(
        CANCEL + "/", {"order_id": "A-1"}, content_type="application/json", **alice.headers
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert the_one_event(response, endpoint="cancel").outcome == "tracked"


def test_a_cancel_takes_a_bounded_number_of_queries(client, alice, commission, django_assert_max_num_queries):
    # key, the throttle's count, BEGIN, lock, move, its history row, COMMIT, outcome row, key's last-used time
    with django_assert_max_num_queries(9):
        response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "tracked"
