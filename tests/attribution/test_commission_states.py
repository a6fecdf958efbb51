"""The commission state machine of decision D7: Commission.TRANSITIONS, services.move_commission, and
the moves cancel and update make through the API."""

from datetime import UTC, datetime
from decimal import Decimal
from itertools import product

import pytest
from django.db import IntegrityError, transaction

from attribution.models import AmountChange, Commission
from attribution.services import move_commission
from health.models import OutcomeEvent
from tests.attribution.keyed import CANCEL, CREATED_AT, UPDATE, caller_of, commission_for, fresh

State = Commission.State
PENDING, LOCKED, PAID, CANCELLED = State.PENDING, State.LOCKED, State.PAID, State.CANCELLED
AT = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
STAMPS = {CANCELLED: "cancelled_at", LOCKED: "locked_at", PAID: "paid_at", PENDING: None}

ALLOWED = {(PENDING, LOCKED), (PENDING, CANCELLED), (LOCKED, PAID), (LOCKED, CANCELLED)}
REFUSED = sorted(set(product(State, State)) - ALLOWED)


@pytest.fixture
def alice(brand, prop):
    return caller_of(brand, "alice")


@pytest.fixture
def bob(other_brand, other_prop):
    return caller_of(other_brand, "bob")


def cancel(client, caller, order_id="A-1"):
    headers = caller.headers if caller is not None else {}
    return client.post(CANCEL, {"order_id": order_id}, content_type="application/json", **headers)


def update(client, caller, total, order_id="A-1"):
    headers = caller.headers if caller is not None else {}
    body = {"order_id": order_id, "new_order_amount": total, "currency": "USD"}
    return client.post(UPDATE, body, content_type="application/json", **headers)


# --- the table and the one function that moves a commission ---------------------------------


def test_the_allowed_moves_are_exactly_those_of_d7():
    assert Commission.TRANSITIONS == {
        PENDING: {LOCKED, CANCELLED},
        LOCKED: {PAID, CANCELLED},
        PAID: set(),
        CANCELLED: set(),
    }
    assert {(a, b) for a, targets in Commission.TRANSITIONS.items() for b in targets} == ALLOWED


@pytest.mark.parametrize("current, target", sorted(ALLOWED), ids=lambda s: str(s))
def test_move_commission_makes_an_allowed_move_and_stamps_it(brand, current, target):
    commission = commission_for(brand, order_id="A-1", state=current)

    move_commission(commission, target, at=AT)

    moved = fresh(commission)
    assert moved.state == target
    assert getattr(moved, STAMPS[target]) == AT
    assert moved.updated_at == AT
    assert moved.amount == Decimal("10.00")


@pytest.mark.parametrize("current, target", REFUSED, ids=lambda s: str(s))
def test_move_commission_refuses_any_other_move(brand, current, target):
    commission = commission_for(brand, order_id="A-1", state=current)

    with pytest.raises(ValueError, match=f"{current} -> {target} is not allowed"):
        move_commission(commission, target, at=AT)

    unchanged = fresh(commission)
    assert (unchanged.state, unchanged.updated_at) == (current, CREATED_AT)
    assert (unchanged.cancelled_at, unchanged.locked_at, unchanged.paid_at) == (None, None, None)


def test_the_database_refuses_a_state_outside_the_machine(brand):
    commission = commission_for(brand, order_id="A-1")

    with pytest.raises(IntegrityError), transaction.atomic():
        Commission.objects.filter(pk=commission.pk).update(state="refunded")


# --- the moves the API makes -----------------------------------------------------------------


def test_a_cancel_moves_a_pending_commission_to_cancelled(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=PENDING)

    response = cancel(client, alice)

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert OutcomeEvent.objects.get().outcome == "tracked"


def test_a_cancel_moves_a_locked_commission_to_cancelled(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=LOCKED)

    response = cancel(client, alice)

    assert response.json()["outcome"] == "tracked"
    cancelled = fresh(commission)
    assert cancelled.state == CANCELLED
    assert cancelled.cancelled_at == OutcomeEvent.objects.get().received_at


def test_a_cancel_of_a_cancelled_commission_answers_already_cancelled(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=CANCELLED)

    response = cancel(client, alice)

    assert response.status_code == 200
    assert response.json()["outcome"] == "already_cancelled"
    unchanged = fresh(commission)
    assert (unchanged.state, unchanged.cancelled_at, unchanged.updated_at) == (CANCELLED, None, CREATED_AT)
    assert OutcomeEvent.objects.get().outcome == "already_cancelled"


def test_an_update_after_cancel_answers_already_cancelled_and_changes_nothing(client, alice, brand):
    commission = commission_for(brand, order_id="A-1")
    cancel(client, alice)

    response = update(client, alice, "20")

    assert response.status_code == 200
    assert response.json()["outcome"] == "already_cancelled"
    after = fresh(commission)
    assert (after.state, after.order_amount, after.amount) == (CANCELLED, Decimal("100"), Decimal("10.00"))
    assert not AmountChange.objects.exists()
    assert list(OutcomeEvent.objects.order_by("id").values_list("outcome", flat=True)) == [
        "tracked",
        "already_cancelled",
    ]


def test_a_cancel_after_an_update_cancels_and_keeps_the_history(client, alice, brand):
    commission = commission_for(brand, order_id="A-1")
    update(client, alice, "40")

    response = cancel(client, alice)

    assert response.json()["outcome"] == "tracked"
    after = fresh(commission)
    assert (after.state, after.order_amount, after.amount) == (CANCELLED, Decimal("40"), Decimal("4.00"))
    change = AmountChange.objects.get()
    assert (change.old_amount, change.new_amount) == (Decimal("10.00"), Decimal("4.00"))
    assert after.cancelled_at >= change.changed_at


def test_the_amount_of_a_locked_commission_can_still_be_updated(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=LOCKED)

    response = update(client, alice, "50")

    assert response.json()["outcome"] == "tracked"
    after = fresh(commission)
    assert (after.state, after.amount) == (LOCKED, Decimal("5.00"))
    assert AmountChange.objects.count() == 1


@pytest.mark.parametrize(
    "send", [cancel, lambda client, caller: update(client, caller, "20")], ids=["cancel", "update"]
)
def test_a_paid_commission_is_neither_cancelled_nor_changed(client, alice, brand, send):
    commission = commission_for(brand, order_id="A-1", state=PAID)

    response = send(client, alice)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "handler_error",
        "message": "The commission of order A-1 was already paid out, so it was not changed. "
        "Nothing to change on your side: the event is kept and your account manager settles it.",
    }
    after = fresh(commission)
    assert (after.state, after.amount, after.updated_at, after.cancelled_at) == (
        PAID,
        Decimal("10.00"),
        CREATED_AT,
        None,
    )
    assert not AmountChange.objects.exists()
    event = OutcomeEvent.objects.get()
    assert (event.outcome, event.brand_id, event.order_id) == ("handler_error", brand.id, "A-1")


@pytest.mark.parametrize("who", ["bob", "anonymous"])
@pytest.mark.parametrize("state", [PENDING, LOCKED])
def test_only_the_brands_own_key_moves_its_commission(client, bob, brand, who, state):
    commission = commission_for(brand, order_id="A-1", state=state)
    caller = bob if who == "bob" else None

    answers = [cancel(client, caller).json()["outcome"], update(client, caller, "20").json()["outcome"]]

    assert answers == (["order_not_found"] * 2 if who == "bob" else ["unauthorized"] * 2)
    after = fresh(commission)
    assert (after.state, after.amount, after.updated_at) == (state, Decimal("10.00"), CREATED_AT)
    assert not AmountChange.objects.exists()
