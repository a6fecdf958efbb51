"""The commission state machine (docs/decisions.md, "Commission states"; plus paid -> cancelled, the cancel
after payment whose clawback tests/attribution/billing/test_clawbacks.py covers): Commission.TRANSITIONS,
Commission.move_to and its history rows, and the moves cancel and update make through the API."""

from datetime import UTC, date, datetime
from decimal import Decimal
from itertools import product

import pytest
from django.db import IntegrityError, transaction

from attribution.models import AmountChange, Commission, CommissionHold, CommissionStateChange, Statement
from health.log.models import OutcomeEvent
from tests.attribution.keyed import CANCEL, CREATED_AT, PAID_AT, UPDATE, commission_for, fresh

State = Commission.State
PENDING, LOCKED, PAID, CANCELLED, HELD = State.PENDING, State.LOCKED, State.PAID, State.CANCELLED, State.HELD
AT = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
CAUSE = CommissionStateChange.Cause.CANCEL
STAMPS = {CANCELLED: "cancelled_at", LOCKED: "locked_at", PAID: "paid_at", PENDING: None}

D7_MOVES = {(PENDING, LOCKED), (PENDING, CANCELLED), (LOCKED, PAID), (LOCKED, CANCELLED)}
# Review holds (docs/review.md): a held commission is released to pending or rejected (or cancelled).
REVIEW_MOVES = {(HELD, PENDING), (HELD, CANCELLED)}
ALLOWED = D7_MOVES | {(PAID, CANCELLED)} | REVIEW_MOVES
REFUSED = sorted(set(product(State, State)) - ALLOWED)


def cancel(client, caller, order_id="A-1"):
    headers = caller.headers if caller is not None else {}
    return client.post(CANCEL, {"order_id": order_id}, content_type="application/json", **headers)


def update(client, caller, total, order_id="A-1"):
    headers = caller.headers if caller is not None else {}
    body = {"order_id": order_id, "new_order_amount": total, "currency": "USD"}
    return client.post(UPDATE, body, content_type="application/json", **headers)


# --- the table and the one function that moves a commission -------------------------------------------------


def test_the_allowed_moves_are_those_of_d7_and_the_cancel_after_payment():
    assert Commission.TRANSITIONS == {
        HELD: {PENDING, CANCELLED},
        PENDING: {LOCKED, CANCELLED},
        LOCKED: {PAID, CANCELLED},
        PAID: {CANCELLED},
        CANCELLED: set(),
    }
    assert {(a, b) for a, targets in Commission.TRANSITIONS.items() for b in targets} == ALLOWED
    assert ALLOWED - D7_MOVES == {(PAID, CANCELLED)} | REVIEW_MOVES


@pytest.mark.parametrize("current, target", sorted(ALLOWED), ids=lambda s: str(s))
def test_move_to_makes_an_allowed_move_and_stamps_it(brand, current, target):
    commission = commission_for(brand, order_id="A-1", state=current)
    june = Statement.objects.create(brand=brand, month=date(2026, 6, 1))
    before = (commission.locked_at, commission.paid_at, commission.statement_id)

    # Out of held, a move says how its holds are resolved (tests/attribution/review/test_holds_resolved_by_a_cancel.py).
    resolution = CommissionHold.cancelled_with_its_order("change") if current == HELD else None
    commission.move_to(
        target, cause=CAUSE, at=AT, statement=june if target == LOCKED else None, resolution=resolution
    )

    moved = fresh(commission)
    assert moved.state == target
    if STAMPS[target]:  # a release stamps only updated_at
        assert getattr(moved, STAMPS[target]) == AT
    assert moved.updated_at == AT
    assert moved.amount == Decimal("10.00")
    if target == LOCKED:
        assert moved.statement == june
    elif target == PAID:
        assert (moved.paid_amount, moved.statement_id) == (Decimal("10.00"), before[2])
    else:  # a cancel keeps when it locked and was paid, and its statement
        assert (moved.locked_at, moved.paid_at, moved.statement_id) == before


@pytest.mark.parametrize("current, target", REFUSED, ids=lambda s: str(s))
def test_move_to_refuses_any_other_move(brand, current, target):
    commission = commission_for(brand, order_id="A-1", state=current)
    before = Commission.objects.filter(pk=commission.pk).values().get()
    june = Statement.objects.create(brand=brand, month=date(2026, 6, 1))

    with pytest.raises(ValueError, match=f"{current} -> {target} is not allowed"):
        commission.move_to(target, cause=CAUSE, at=AT, statement=june if target == LOCKED else None)

    assert Commission.objects.filter(pk=commission.pk).values().get() == before
    assert before["updated_at"] == CREATED_AT


def test_a_lock_needs_a_statement_and_no_other_move_takes_one(brand):
    pending = commission_for(brand, order_id="A-1")
    june = Statement.objects.create(brand=brand, month=date(2026, 6, 1))

    with pytest.raises(ValueError, match="locks onto a statement, and only then"):
        pending.move_to(LOCKED, cause=CAUSE, at=AT)
    with pytest.raises(ValueError, match="locks onto a statement, and only then"):
        pending.move_to(CANCELLED, cause=CAUSE, at=AT, statement=june)

    assert Commission.objects.filter(pk=pending.pk).values_list("state", "statement_id").get() == (
        PENDING,
        None,
    )


@pytest.mark.parametrize(
    "change, constraint",
    [
        ({"state": LOCKED}, "commission_on_statement_once_locked"),
        ({"state": PAID, "paid_at": AT, "paid_amount": Decimal("10")}, "commission_on_statement_once_locked"),
        ({"paid_at": AT}, "commission_paid_is_stamped"),
        ({"is_test": True, "locked_at": AT}, "commission_test_never_billed"),
    ],
    ids=["locked-off-statement", "paid-off-statement", "paid-without-amount", "test-locked"],
)
def test_the_database_refuses_a_billing_state_that_breaks_the_rules(brand, change, constraint):
    commission = commission_for(brand, order_id="A-1")

    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        Commission.objects.filter(pk=commission.pk).update(**change)


def test_the_database_refuses_a_state_outside_the_machine(brand):
    commission = commission_for(brand, order_id="A-1")

    with pytest.raises(IntegrityError), transaction.atomic():
        Commission.objects.filter(pk=commission.pk).update(state="refunded")


# --- the moves the API makes --------------------------------------------------------------------------------


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


def test_a_cancel_moves_a_paid_commission_to_cancelled_and_keeps_its_payment(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=PAID)

    response = cancel(client, alice)

    assert response.json()["outcome"] == "tracked"
    after = fresh(commission)
    assert (after.state, after.paid_at, after.paid_amount) == (CANCELLED, PAID_AT, Decimal("10.00"))
    assert after.cancelled_at == OutcomeEvent.objects.get().received_at


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
