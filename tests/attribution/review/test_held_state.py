"""The held state (docs/review.md): a held commission never locks onto a statement; released, it is pending
and locks on the first run after its release once its window has closed; rejected, it is cancelled. Every
move keeps its history row, and cancel and update work on it as on a pending one."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from attribution.models import Commission, CommissionHold, CommissionStateChange, Statement
from attribution.review import decisions
from tests.attribution.keyed import CANCEL, UPDATE, caller_of, fresh
from tests.attribution.review.helpers import held_commission
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

State = Commission.State
ADMIN = decisions.Who(via=CommissionHold.Via.ADMIN)


def lock() -> str:
    out = StringIO()
    call_command("lock_commissions", stdout=out)
    return out.getvalue()


def on_statements() -> set[int]:
    return set(Commission.objects.filter(statement__isnull=False).values_list("pk", flat=True))


def test_lock_commissions_skips_a_held_commission_and_locks_it_on_the_first_run_after_release(brand):
    held = held_commission(brand, "A-1")  # created in May 2026: its window closed long ago

    assert "Locked 0 commissions" in lock()
    assert fresh(held).state == State.HELD
    assert held.pk not in on_statements()
    assert not Statement.objects.exists()

    manager = UserFactory(username="am", is_staff=True)
    outcome = decisions.decide(
        held.pk, "release", note="her sister's order", who=decisions.Who(via="admin", user=manager)
    )
    assert outcome == "released"
    assert fresh(held).state == State.PENDING

    assert "Locked 1 commissions" in lock()
    locked = fresh(held)
    assert locked.state == State.LOCKED and locked.statement is not None
    moves = list(
        CommissionStateChange.objects.filter(commission=held).values_list("from_state", "to_state", "cause")
    )
    assert moves == [("held", "pending", "review_release"), ("pending", "locked", "lock_commissions")]
    hold = CommissionHold.objects.get(commission=held)
    assert (hold.decision, hold.note, hold.decided_by, hold.via) == (
        "released",
        "her sister's order",
        manager,
        "admin",
    )
    assert hold.decided_at is not None


def test_a_rejected_hold_cancels_the_commission_and_nothing_ever_locks_it(brand):
    held = held_commission(brand, "A-1")

    assert decisions.decide(held.pk, "reject", note="her own order", who=ADMIN) == "rejected"
    lock()

    rejected = fresh(held)
    assert (rejected.state, rejected.statement_id) == (State.CANCELLED, None)
    assert rejected.cancelled_at is not None
    assert CommissionStateChange.objects.get(commission=held).cause == "review_reject"
    assert CommissionHold.objects.get(commission=held).decision == "rejected"


def test_a_second_decision_is_not_held_and_changes_nothing(brand):
    held = held_commission(brand, "A-1")
    decisions.decide(held.pk, "release", who=ADMIN)

    assert decisions.decide(held.pk, "reject", who=ADMIN) == "not_held"
    assert fresh(held).state == State.PENDING
    assert CommissionStateChange.objects.filter(commission=held).count() == 1


def test_a_bulk_decision_moves_every_held_one_and_leaves_the_others(brand):
    first, second = held_commission(brand, "A-1"), held_commission(brand, "A-2")
    pending = held_commission(brand, "A-3")
    decisions.decide(pending.pk, "release", who=ADMIN)

    outcomes = decisions.decide_many(
        [second.pk, pending.pk, first.pk], "reject", note="leaked code", who=ADMIN
    )

    assert outcomes == [(first.pk, "rejected"), (second.pk, "rejected"), (pending.pk, "not_held")]
    assert [fresh(c).state for c in (first, second, pending)] == [
        State.CANCELLED,
        State.CANCELLED,
        State.PENDING,
    ]
    assert decisions.summary(outcomes) == {"rejected": 2, "not_held": 1}


def test_a_brand_cancels_a_held_commission_as_a_pending_one(client, brand):
    held = held_commission(brand, "A-1")
    alice = caller_of(brand, "alice")

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "tracked"
    assert fresh(held).state == State.CANCELLED
    assert CommissionStateChange.objects.get(commission=held).from_state == "held"


def test_a_brand_updates_a_held_commission_and_it_stays_held(client, brand):
    held = held_commission(brand, "A-1")
    alice = caller_of(brand, "alice")

    body = {"order_id": "A-1", "new_order_amount": "50", "currency": "USD"}
    response = client.post(UPDATE, body, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "tracked"
    updated = fresh(held)
    assert (updated.state, str(updated.amount)) == (State.HELD, "5.000000")


def test_the_database_keeps_a_held_commission_off_every_statement(brand):
    held = held_commission(brand, "A-1")
    statement = Statement.objects.create(brand=brand, month=datetime(2026, 5, 1, tzinfo=UTC).date())

    with pytest.raises(IntegrityError), transaction.atomic():
        Commission.objects.filter(pk=held.pk).update(statement=statement)


def test_a_released_commission_whose_window_is_still_open_waits_for_it(brand):
    held = held_commission(brand, "A-1")
    order = held.order
    order.return_window_closes_at = timezone.now() + timedelta(days=3)
    order.save(update_fields=["return_window_closes_at"])

    decisions.decide(held.pk, "release", who=ADMIN)
    lock()

    assert fresh(held).state == State.PENDING
