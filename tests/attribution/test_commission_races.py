"""Concurrent cancels and updates of one commission on PostgreSQL ("Commission states" in docs/decisions.md; STYLE: locks, not
check-then-write). Each thread is its own client with its own database connection; a barrier
releases them together so their requests really overlap."""

import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client

from attribution.models import AmountChange, Commission
from health.log.models import OutcomeEvent
from tests.attribution.keyed import CANCEL, UPDATE, commission_for, fresh

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

RACERS = 8


def race(*requests):
    """Send (path, body, headers) requests from one thread each, all released at once; their answers in order."""
    barrier = threading.Barrier(len(requests))
    answers, failures = [None] * len(requests), []

    def send(index, path, body, headers):
        try:
            client = Client()
            connection.ensure_connection()  # connect before the barrier, so the requests themselves overlap
            barrier.wait(timeout=30)
            answers[index] = client.post(path, body, content_type="application/json", **headers)
        except BaseException as exc:  # noqa: BLE001  (reported to the test below)
            failures.append(exc)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a racer hung"
    assert not failures, failures
    return answers


def outcomes(answers):
    return [answer.json()["outcome"] for answer in answers]


def test_concurrent_cancels_cancel_once_and_answer_already_cancelled_to_the_rest(alice, bob, brand):
    commission = commission_for(brand, order_id="A-1")
    body = {"order_id": "A-1"}

    answers = race(
        *[(CANCEL, body, alice.headers)] * RACERS,
        (CANCEL, body, bob.headers),
        (CANCEL, body, {}),
    )

    alices, bobs, anonymous = answers[:RACERS], answers[RACERS], answers[RACERS + 1]
    assert sorted(outcomes(alices)) == ["already_cancelled"] * (RACERS - 1) + ["tracked"]
    assert all(answer.status_code == 200 for answer in alices)
    assert (bobs.status_code, bobs.json()["outcome"]) == (200, "order_not_found")
    assert (anonymous.status_code, anonymous.json()["outcome"]) == (401, "unauthorized")
    cancelled = fresh(commission)
    assert (cancelled.state, cancelled.amount) == (Commission.State.CANCELLED, Decimal("10.00"))
    tracked = OutcomeEvent.objects.get(outcome="tracked")
    assert cancelled.cancelled_at >= tracked.received_at
    assert OutcomeEvent.objects.filter(endpoint="cancel").count() == RACERS + 2
    assert OutcomeEvent.objects.filter(outcome="already_cancelled", brand=brand).count() == RACERS - 1


def test_concurrent_updates_each_leave_a_history_row_and_the_last_one_applied_wins(alice, bob, brand):
    commission = commission_for(brand, order_id="A-1", order_amount="100.00")
    totals = [f"{10 * (i + 1)}.00" for i in range(RACERS)]

    answers = race(
        *[
            (UPDATE, {"order_id": "A-1", "new_order_amount": t, "currency": "USD"}, alice.headers)
            for t in totals
        ],
        (UPDATE, {"order_id": "A-1", "new_order_amount": "1", "currency": "USD"}, bob.headers),
    )

    assert outcomes(answers) == ["tracked"] * RACERS + ["order_not_found"]
    after = fresh(commission)
    applied = list(AmountChange.objects.filter(commission=commission).order_by("id"))  # lock order
    assert len(applied) == RACERS
    assert after.order_amount in {Decimal(t) for t in totals}
    assert (after.order_amount, after.amount) == (applied[-1].new_order_amount, applied[-1].new_amount)
    assert after.updated_at == applied[-1].changed_at
    # Each change starts where the one before it ended: no update was lost or applied to a stale amount.
    assert (applied[0].old_order_amount, applied[0].old_amount) == (Decimal("100"), Decimal("10.00"))
    for before, change in zip(applied, applied[1:], strict=False):
        assert (change.old_order_amount, change.old_amount) == (before.new_order_amount, before.new_amount)
        assert change.changed_at >= before.changed_at
    # The history as the read API and the admin order it (by time) is the order it was applied in.
    assert list(commission.amount_changes.all()) == applied
    assert sorted(c.new_order_amount for c in applied) == sorted(Decimal(t) for t in totals)
    request_ids = {c.request_id for c in applied}
    assert len(request_ids) == RACERS
    assert (
        set(
            OutcomeEvent.objects.filter(endpoint="update", outcome="tracked").values_list(
                "request_id", flat=True
            )
        )
        == request_ids
    )


@pytest.mark.parametrize("round_", range(5))
def test_a_concurrent_cancel_and_update_leave_a_consistent_commission(alice, brand, round_):
    commission = commission_for(brand, order_id="A-1", order_amount="100.00")

    cancelled, updated = race(
        (CANCEL, {"order_id": "A-1"}, alice.headers),
        (UPDATE, {"order_id": "A-1", "new_order_amount": "40", "currency": "USD"}, alice.headers),
    )

    after = fresh(commission)
    history = list(AmountChange.objects.filter(commission=commission))
    assert cancelled.json()["outcome"] == "tracked"
    assert after.state == Commission.State.CANCELLED
    if updated.json()["outcome"] == "tracked":  # the update got the row lock first
        assert (after.order_amount, after.amount) == (Decimal("40"), Decimal("4.00"))
        assert [(c.old_amount, c.new_amount) for c in history] == [(Decimal("10.00"), Decimal("4.00"))]
        assert after.cancelled_at >= history[0].changed_at
    else:
        assert updated.json()["outcome"] == "already_cancelled"
        assert (after.order_amount, after.amount) == (Decimal("100"), Decimal("10.00"))
        assert history == []
    assert sorted(OutcomeEvent.objects.values_list("endpoint", flat=True)) == ["cancel", "update"]
