"""POST /api/Affiliates/update (docs/api.md, "Update"; docs/decisions.md)."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import DatabaseError

from attribution.models import AmountChange, Commission
from health.log.models import OutcomeEvent
from tests.attribution.keyed import commission_for, fresh, the_one_event
from tests.attribution.update.conftest import assert_unchanged, update
from tests.faults import failing_writes_to


@pytest.mark.parametrize(
    "sent, shown",
    [("1e6", "1000000.00"), ("-0.0", "0.00"), ('"59.905"', "59.905"), ("40", "40.00")],
)
def test_the_answer_shows_the_new_total_as_a_person_writes_it(client, alice, commission, sent, shown):
    # `sent` is the JSON token as written, exponent and signed zero included.
    response = update(client, alice, f'{{"order_id": "A-1", "new_order_amount": {sent}, "currency": "USD"}}')

    assert response.json()["message"] == f"The commission of order A-1 now follows the new total {shown} USD."


def test_it_sets_the_commission_from_the_new_order_total(client, alice, commission):
    response = update(
        client,
        alice,
        {"order_id": "A-1", "new_order_amount": "49.90", "currency": "USD"},
        HTTP_X_REQUEST_ID="req-update-0001",
    )

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "The commission of order A-1 now follows the new total 49.90 USD.",
    }
    event = the_one_event(response, endpoint="update")
    updated = fresh(commission)
    assert (updated.order_amount, updated.amount, updated.state) == (
        Decimal("49.90"),
        Decimal("4.99"),
        "pending",
    )
    assert updated.updated_at == event.received_at
    assert event.request_id == "req-update-0001"
    assert updated.order.amount == Decimal("100.00"), "the order stays as it was received"
    change = AmountChange.objects.get()
    assert (change.old_order_amount, change.new_order_amount, change.old_amount, change.new_amount) == (
        Decimal("100.00"),
        Decimal("49.90"),
        Decimal("10.00"),
        Decimal("4.99"),
    )
    assert (change.commission_id, change.brand_id, change.changed_at, change.request_id) == (
        commission.pk,
        alice.brand.id,
        event.received_at,
        "req-update-0001",
    )
    assert (event.outcome, event.brand_id, event.order_id, event.is_test, event.key_prefix) == (
        "tracked",
        alice.brand.id,
        "A-1",
        False,
        alice.key.prefix,
    )


def test_the_history_row_joins_the_outcome_record_of_its_request(client, alice, commission):
    first = update(client, alice, {"order_id": "A-1", "new_order_amount": "80", "currency": "USD"})
    second = update(client, alice, {"order_id": "A-1", "new_order_amount": "60", "currency": "USD"})

    changes = list(AmountChange.objects.order_by("id"))
    assert [c.request_id for c in changes] == [first["X-Request-ID"], second["X-Request-ID"]]
    for change in changes:
        event = OutcomeEvent.objects.get(request_id=change.request_id)
        assert (event.endpoint, event.outcome, event.order_id) == ("update", "tracked", "A-1")
        assert Decimal(json.loads(event.request_body)["new_order_amount"]) == change.new_order_amount
        assert change.changed_at == event.received_at


def test_every_amount_change_keeps_its_history(client, alice, commission):
    for total in ("80.00", "60.00", "75.50"):
        update(client, alice, {"order_id": "A-1", "new_order_amount": total, "currency": "USD"})

    rows = list(
        AmountChange.objects.values_list("old_order_amount", "new_order_amount", "old_amount", "new_amount")
    )
    assert rows == [
        (Decimal("100"), Decimal("80"), Decimal("10.00"), Decimal("8.00")),
        (Decimal("80"), Decimal("60"), Decimal("8.00"), Decimal("6.00")),
        (Decimal("60"), Decimal("75.5"), Decimal("6.00"), Decimal("7.55")),
    ]
    assert fresh(commission).amount == Decimal("7.55")
    assert OutcomeEvent.objects.filter(endpoint="update", outcome="tracked").count() == 3


def test_it_answers_order_not_found_for_an_order_never_received(client, alice):
    response = update(client, alice, {"order_id": "NEVER-1", "new_order_amount": "20", "currency": "USD"})

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "order_not_found",
        "message": "No commission for live order NEVER-1 (usually the order was not attributed).",
    }
    assert not AmountChange.objects.exists()
    assert the_one_event(response, endpoint="update").order_id == "NEVER-1"


@pytest.mark.parametrize("total", ["0", 0, "0.00"])
def test_a_new_total_of_zero_is_a_full_refund_through_update(client, alice, commission, total):
    response = update(client, alice, {"order_id": "A-1", "new_order_amount": total, "currency": "USD"})

    assert response.status_code == 200
    assert response.json()["outcome"] == "tracked"
    updated = fresh(commission)
    assert (updated.order_amount, updated.amount, updated.state) == (Decimal("0"), Decimal("0"), "pending")
    assert AmountChange.objects.get().new_amount == Decimal("0")
    assert the_one_event(response, endpoint="update").outcome == "tracked"


@pytest.mark.parametrize(
    "total, commission_amount",
    [(" 49.90 ", "4.99"), (49.9, "4.99"), (250, "25.00"), ("0.05", "0.01"), ("0.04", "0.00")],
    ids=["padded string", "number", "integer", "rounds half up", "rounds down"],
)
def test_it_accepts_a_plain_number_or_numeric_string(client, alice, commission, total, commission_amount):
    response = update(client, alice, {"order_id": "A-1", "new_order_amount": total, "currency": "usd"})

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).amount == Decimal(commission_amount)
    assert the_one_event(response, endpoint="update").outcome == "tracked"


@pytest.mark.parametrize("total, expected", [("1234", "123"), ("1235", "124")])
def test_it_rounds_the_commission_to_the_currencys_minor_units(client, alice, brand, total, expected):
    commission = commission_for(brand, order_id="J-1", order_amount="10000", currency="JPY")

    response = update(client, alice, {"order_id": "J-1", "new_order_amount": total, "currency": "JPY"})

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).amount == Decimal(expected)


@pytest.mark.parametrize(
    "total",
    [
        "$20",
        "abc",
        -5,
        "-0.01",
        "1,000.00",
        "20 USD",
        "1e3",
        "NaN",
        True,
        {"value": 20},
        [20],
        "",
        "1" * 13,
        "999999999999.9999995",
    ],
    ids=[
        "currency symbol",
        "letters",
        "negative",
        "negative string",
        "thousands separator",
        "with currency",
        "exponent in a string",
        "NaN",
        "boolean",
        "object",
        "array",
        "empty string",
        "too large",
        "rounds up to too large",
    ],
)
def test_it_answers_invalid_order_amount_for_an_unusable_new_total(client, alice, commission, total):
    response = update(client, alice, {"order_id": "A-1", "new_order_amount": total, "currency": "USD"})

    assert response.status_code == 400
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "invalid_order_amount"
    assert response.json()["error"].startswith("new_order_amount ")
    assert_unchanged(commission)
    event = the_one_event(response, endpoint="update")
    assert (event.outcome, event.order_id, event.brand_id) == ("invalid_order_amount", "A-1", alice.brand.id)


@pytest.mark.parametrize("missing", ["order_id", "new_order_amount", "currency"])
@pytest.mark.parametrize("how", ["absent", "null"])
def test_it_answers_invalid_params_when_a_required_field_is_missing(client, alice, commission, missing, how):
    body = {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"}
    if how == "absent":
        del body[missing]
    else:
        body[missing] = None

    response = update(client, alice, body)

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "outcome": "invalid_params",
        "error": f"Missing required field(s): {missing}. Fix: send order_id, new_order_amount, currency.",
    }
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "invalid_params"


@pytest.mark.parametrize("currency", ["XYZ", "US", "usd$", "", 840, ["USD"]])
def test_it_answers_invalid_params_for_a_currency_that_is_not_iso_4217(client, alice, commission, currency):
    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": currency})

    assert response.status_code == 400
    assert response.json()["outcome"] == "invalid_params"
    assert response.json()["error"].startswith("currency ")
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "invalid_params"


def test_it_answers_invalid_params_for_a_currency_other_than_the_orders(client, alice, commission):
    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "EUR"})

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "outcome": "invalid_params",
        "error": "currency EUR differs from the order's USD. Fix: send the new total in the order's currency.",
    }
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "invalid_params"


@pytest.mark.parametrize(
    "body",
    [[{"order_id": "A-1"}], "not json", {"order_id": {"id": 1}, "new_order_amount": "20", "currency": "USD"}],
    ids=["a JSON array", "not JSON", "order_id an object"],
)
def test_it_answers_invalid_params_for_a_body_it_cannot_use(client, alice, commission, body):
    response = update(client, alice, body)

    assert response.status_code == 400
    assert response.json()["outcome"] == "invalid_params"
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "invalid_params"


def test_it_answers_already_cancelled_and_keeps_the_amount_of_a_cancelled_commission(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=Commission.State.CANCELLED)

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "already_cancelled",
        "message": "The commission of order A-1 is cancelled; its amount was not changed.",
    }
    assert_unchanged(commission)
    assert fresh(commission).state == Commission.State.CANCELLED
    assert the_one_event(response, endpoint="update").outcome == "already_cancelled"


def test_it_answers_insert_failed_when_saving_the_new_amount_fails(client, alice, commission):
    with failing_writes_to("attribution_amountchange", DatabaseError):
        response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert response.json()["outcome"] == "insert_failed"
    assert_unchanged(commission)  # the history row written before the failure was rolled back with it
    event = the_one_event(response, endpoint="update")
    assert (event.outcome, event.brand_id, event.order_id) == ("insert_failed", alice.brand.id, "A-1")


def test_it_answers_handler_error_when_processing_fails_unexpectedly(client, alice, commission, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("rounding exploded")

    monkeypatch.setattr("attribution.orders.changes.reprice", broken)

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["success"] is True
    assert response.json()["outcome"] == "handler_error"
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "handler_error"


def test_a_change_is_never_stamped_before_the_commissions_previous_change(client, alice, commission):
    # Another worker whose clock runs ahead changed this commission "later" than this request's arrival.
    ahead = commission.updated_at + timedelta(days=3650)
    Commission.objects.filter(pk=commission.pk).update(updated_at=ahead)

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    event = the_one_event(response, endpoint="update")
    assert event.received_at < ahead
    assert AmountChange.objects.get().changed_at == ahead
    assert fresh(commission).updated_at == ahead


def test_an_update_takes_a_bounded_number_of_queries(
    client, alice, commission, django_assert_max_num_queries
):
    with django_assert_max_num_queries(9):  # eight, and the throttle's count
        response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    assert response.json()["outcome"] == "tracked"
