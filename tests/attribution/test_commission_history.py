"""Every state move of a commission leaves one CommissionStateChange row (from, to, when, why), written
by Commission.move_to in the transaction of the move: cancel, lock, payment, a cancel after payment
(clawback), a cancel replayed from the spool. An update moves no state and leaves none."""

import pytest
from django.db import OperationalError, transaction

from attribution.billing.writers import lock_due_commissions, pay_statement
from attribution.models import Commission, CommissionStateChange, Statement
from attribution.replay import replay_all
from tests.attribution.billed import NOV_03, OCT_10, OCT_20, cancel, fresh, pending, update
from tests.attribution.keyed import CANCEL, commission_for, order_url
from tests.factories import CreatorFactory, issue_key

State = Commission.State
Cause = CommissionStateChange.Cause


def moves(commission) -> list[tuple]:
    return list(
        CommissionStateChange.objects.filter(commission=commission).values_list(
            "from_state", "to_state", "changed_at", "cause", "request_id", "brand_id"
        )
    )


@pytest.fixture
def key(brand):
    return issue_key(brand)[0]


@pytest.fixture
def ana(brand):
    return CreatorFactory(brand=brand, name="Ana")


def test_a_cancel_records_its_move_with_the_request_that_made_it(brand, key, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00")

    cancel(key, "A-1", at=OCT_20, request_id="req-cancel-1")

    assert moves(commission) == [
        (State.PENDING, State.CANCELLED, OCT_20, Cause.CANCEL, "req-cancel-1", brand.pk)
    ]


def test_an_update_of_a_cancelled_commission_moves_nothing_and_records_no_move(brand, key, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00")
    cancel(key, "A-1", at=OCT_10)

    result = update(key, "A-1", "20.00", at=OCT_20)
    again = cancel(key, "A-1", at=OCT_20)

    assert (result.outcome, again.outcome) == ("already_cancelled", "already_cancelled")
    assert [(m[0], m[1]) for m in moves(commission)] == [(State.PENDING, State.CANCELLED)]


def test_an_update_changes_the_amount_and_records_no_state_move(brand, key, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00")

    assert update(key, "A-1", "20.00", at=OCT_10).outcome == "tracked"

    assert moves(commission) == []


def test_locking_and_paying_record_both_moves_with_the_run_that_made_them(brand, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00", closes_at=OCT_10)
    lock_due_commissions(now=OCT_20)
    statement = Statement.objects.get(brand=brand)

    pay_statement(statement_id=statement.pk, at=NOV_03)

    assert moves(commission) == [
        (State.PENDING, State.LOCKED, OCT_20, Cause.LOCK, "", brand.pk),
        (State.LOCKED, State.PAID, NOV_03, Cause.PAYMENT, "", brand.pk),
    ]


def test_a_cancel_after_payment_records_the_clawback_move(brand, key, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00", closes_at=OCT_10)
    lock_due_commissions(now=OCT_20)
    pay_statement(statement_id=Statement.objects.get(brand=brand).pk, at=NOV_03)

    result = cancel(key, "A-1", at=NOV_03, request_id="req-clawback")

    assert "clawed back" in result.text
    assert [(m[0], m[1], m[3], m[4]) for m in moves(commission)][-1] == (
        State.PAID,
        State.CANCELLED,
        Cause.CANCEL,
        "req-clawback",
    )


def test_a_cancel_replayed_from_the_spool_records_its_move_once_with_the_original_request(
    api, brand, prop, monkeypatch
):
    commission = commission_for(brand, order_id="C-1")
    _, plaintext = issue_key(brand)
    with monkeypatch.context() as patch:

        def refuse(*args, **kwargs):
            raise OperationalError("database is down")

        patch.setattr(Commission, "move_to", refuse)
        response = api.post(CANCEL, {"order_id": "C-1"}, key=plaintext, HTTP_X_REQUEST_ID="req-spooled-1")
    assert response.json()["outcome"] == "handler_error"
    assert moves(commission) == []

    replay_all()
    replay_all()

    [(from_state, to_state, _, cause, request_id, _)] = moves(commission)
    assert (from_state, to_state, cause, request_id) == (
        State.PENDING,
        State.CANCELLED,
        Cause.CANCEL,
        "req-spooled-1",
    )


def test_a_move_decided_on_a_stale_read_is_refused_and_writes_nothing(brand, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00")
    stale = fresh(commission)
    commission.move_to(State.CANCELLED, at=OCT_10, cause=Cause.CANCEL)

    with pytest.raises(Commission.StateChanged), transaction.atomic():
        stale.move_to(State.CANCELLED, at=OCT_20, cause=Cause.CANCEL)

    assert len(moves(commission)) == 1
    assert fresh(commission).cancelled_at == OCT_10


def test_a_cancel_decided_before_an_amount_change_it_did_not_see_is_refused(brand, key, ana):
    # The cancel read the commission, then an update changed its amounts (not its state): cancelling on
    # that read would stamp the cancel before the change it never saw.
    commission = pending(brand, "A-1", creator=ana, amount="5.00")
    stale = fresh(commission)
    update(key, "A-1", "40.00", at=OCT_20)

    with pytest.raises(Commission.StateChanged), transaction.atomic():
        stale.move_to(State.CANCELLED, at=OCT_10, cause=Cause.CANCEL)

    assert moves(commission) == []


def test_the_read_api_shows_the_moves_in_order(client, brand, prop, key, ana):
    pending(brand, "A-1", creator=ana, amount="5.00", closes_at=OCT_10)
    lock_due_commissions(now=OCT_20)
    cancel(key, "A-1", at=NOV_03, request_id="req-cancel-2")
    _, plaintext = issue_key(brand)

    body = client.get(order_url("A-1"), HTTP_AUTHORIZATION=f"Bearer {plaintext}").json()

    assert body["commission"]["state_changes"] == [
        {
            "changed_at": OCT_20.isoformat(),
            "from": "pending",
            "to": "locked",
            "cause": "lock_commissions",
            "request_id": "",
        },
        {
            "changed_at": NOV_03.isoformat(),
            "from": "locked",
            "to": "cancelled",
            "cause": "cancel",
            "request_id": "req-cancel-2",
        },
    ]


def test_the_commissions_admin_page_shows_the_moves(admin_client, brand, key, ana):
    commission = pending(brand, "A-1", creator=ana, amount="5.00", closes_at=OCT_10)
    lock_due_commissions(now=OCT_20)
    pay_statement(statement_id=Statement.objects.get(brand=brand).pk, at=NOV_03)
    cancel(key, "A-1", at=NOV_03, request_id="req-cancel-3")

    page = admin_client.get(f"/admin/attribution/commission/{commission.pk}/change/").content.decode()

    assert "State history" in page
    moves_shown = [page.index(cause) for cause in ["lock_commissions)", "Statement paid", "Cancel request"]]
    assert moves_shown == sorted(moves_shown)
    assert "req-cancel-3" in page
    assert "Cancelled after payment" in page and "-5.00 USD" in page  # its clawback adjustment
