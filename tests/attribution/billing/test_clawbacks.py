"""Changes after payment ("Commission states" in docs/decisions.md and the paid -> cancelled move): a cancel of a paid commission cancels it
and claws its amount back, an update claws back or tops up the difference; each is an adjustment carried
to the open statement of the month it happened in, and the answer is `tracked`."""

from datetime import date
from decimal import Decimal

import pytest
from django.test import Client

from attribution.billing.statements import summarize
from attribution.billing.writers import lock_due_commissions, month_of, pay_statement
from attribution.models import Adjustment, AmountChange, Commission, Statement
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.billed import DEC_02, NOV_03, NOV_12, OCT_10, cancel, fresh, pending, update
from tests.attribution.concurrently import run_together
from tests.attribution.keyed import CANCEL, PAID_AT, UPDATE, caller_of, commission_for, order_url

State = Commission.State


def post(client, path, body, caller=None):
    headers = caller.headers if caller is not None else {}
    return client.post(path, body, content_type="application/json", **headers)


def lines(statement) -> dict[tuple[str, str], tuple[int, Decimal, int, Decimal]]:
    return {
        (line.creator, line.currency): (
            line.commissions,
            line.commission_total,
            line.adjustments,
            line.adjustment_total,
        )
        for line in summarize(statement).lines
    }


# --- through the API: the answer, the database, the outcome record ------------------------------------------


def test_a_cancel_of_a_paid_commission_cancels_it_and_claws_its_amount_back(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=State.PAID)

    response = post(client, CANCEL, {"order_id": "A-1"}, alice)

    event = OutcomeEvent.objects.get()
    month = month_of(event.received_at)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "The commission of order A-1 was cancelled after it was paid; "
        f"10.00 USD is clawed back on your statement of {month:%B %Y}.",
    }
    after = fresh(commission)
    assert (after.state, after.cancelled_at, after.paid_at, after.paid_amount) == (
        State.CANCELLED,
        event.received_at,
        PAID_AT,
        Decimal("10.00"),
    )
    clawback = Adjustment.objects.get()
    assert (clawback.brand, clawback.commission, clawback.amount, clawback.currency, clawback.reason) == (
        brand,
        after,
        Decimal("-10.00"),
        "USD",
        "cancel",
    )
    assert (clawback.statement.brand, clawback.statement.month, clawback.statement.state) == (
        brand,
        month,
        "open",
    )
    assert (clawback.created_at, clawback.request_id) == (event.received_at, response["X-Request-ID"])
    assert (event.outcome, event.endpoint, event.order_id, event.brand_id) == (
        "tracked",
        "cancel",
        "A-1",
        brand.id,
    )


def test_a_second_cancel_answers_already_cancelled_and_claws_back_nothing_more(client, alice, brand):
    commission_for(brand, order_id="A-1", state=State.PAID)
    post(client, CANCEL, {"order_id": "A-1"}, alice)

    again = post(client, CANCEL, {"order_id": "A-1"}, alice)
    after_update = post(client, UPDATE, {"order_id": "A-1", "new_order_amount": 5, "currency": "USD"}, alice)

    assert (again.status_code, again.json()["outcome"]) == (200, "already_cancelled")
    assert (after_update.status_code, after_update.json()["outcome"]) == (200, "already_cancelled")
    assert Adjustment.objects.count() == 1
    assert not AmountChange.objects.exists()


def test_an_update_of_a_paid_commission_claws_back_the_difference_and_keeps_the_history(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=State.PAID)

    response = post(client, UPDATE, {"order_id": "A-1", "new_order_amount": "40", "currency": "USD"}, alice)

    event = OutcomeEvent.objects.get()
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "The commission of order A-1 now follows the new total 40.00 USD. It was already paid: "
        f"6.00 USD is clawed back on your statement of {month_of(event.received_at):%B %Y}.",
    }
    after = fresh(commission)
    assert (after.state, after.amount, after.order_amount, after.paid_amount) == (
        State.PAID,
        Decimal("4.00"),
        Decimal("40"),
        Decimal("10.00"),
    )
    change = AmountChange.objects.get()
    assert (change.old_amount, change.new_amount, change.request_id) == (
        Decimal("10.00"),
        Decimal("4.00"),
        response["X-Request-ID"],
    )
    clawback = Adjustment.objects.get()
    assert (clawback.amount, clawback.reason, clawback.request_id) == (
        Decimal("-6.00"),
        "update",
        response["X-Request-ID"],
    )
    assert clawback.created_at == change.changed_at == after.updated_at


def test_an_update_in_another_currency_is_refused_and_bills_nothing(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=State.PAID)

    response = post(client, UPDATE, {"order_id": "A-1", "new_order_amount": "40", "currency": "EUR"}, alice)

    assert (response.status_code, response.json()["outcome"]) == (400, "invalid_params")
    assert fresh(commission).amount == Decimal("10.00")
    assert not Adjustment.objects.exists()
    assert not Statement.objects.exclude(pk=commission.statement_id).exists()


@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_only_the_brands_own_key_changes_a_paid_commission(client, bob, brand, who):
    commission = commission_for(brand, order_id="A-1", state=State.PAID)
    caller = bob if who == "bob" else None

    answers = [
        post(client, CANCEL, {"order_id": "A-1"}, caller),
        post(client, UPDATE, {"order_id": "A-1", "new_order_amount": 1, "currency": "USD"}, caller),
    ]

    expected = (200, "order_not_found") if who == "bob" else (401, "unauthorized")
    assert [(a.status_code, a.json()["outcome"]) for a in answers] == [expected] * 2
    after = fresh(commission)
    assert (after.state, after.amount, after.cancelled_at) == (State.PAID, Decimal("10.00"), None)
    assert not Adjustment.objects.exists()


def test_the_read_api_shows_the_payment_the_cancel_and_the_clawback(client, alice, brand):
    commission_for(brand, order_id="A-1", state=State.PAID)
    post(client, UPDATE, {"order_id": "A-1", "new_order_amount": "120", "currency": "USD"}, alice)
    post(client, CANCEL, {"order_id": "A-1"}, alice)
    update_event, cancel_event = OutcomeEvent.objects.order_by("id")

    body = client.get(order_url("A-1"), **alice.headers).json()["commission"]

    assert (body["state"], body["amount"], body["paid_amount"], body["statement"]) == (
        "cancelled",
        "12.00",
        "10.00",
        "2026-05",
    )
    assert (body["paid_at"], body["locked_at"]) == (PAID_AT.isoformat(), "2026-05-31T12:00:00+00:00")
    assert body["cancelled_at"] == cancel_event.received_at.isoformat()
    month = f"{month_of(cancel_event.received_at):%Y-%m}"
    assert body["adjustments"] == [
        {
            "created_at": update_event.received_at.isoformat(),
            "reason": "update",
            "amount": "2.00",
            "currency": "USD",
            "statement": month,
            "request_id": update_event.request_id,
        },
        {
            "created_at": cancel_event.received_at.isoformat(),
            "reason": "cancel",
            "amount": "-12.00",
            "currency": "USD",
            "statement": month,
            "request_id": cancel_event.request_id,
        },
    ]


# --- across months, with time controlled --------------------------------------------------------------------


@pytest.fixture
def ana(brand):
    return factories.CreatorFactory(brand=brand, name="Ana")


@pytest.fixture
def paid_in_october(brand, ana):
    """Ana's commission of 10.00 USD, locked in September and paid with September's statement on October 10."""
    commission = pending(brand, "A-1", creator=ana, amount="10.00", closes_at=OCT_10.replace(month=9))
    lock_due_commissions(now=OCT_10.replace(month=9))
    september = Statement.objects.get(brand=brand, month=date(2026, 9, 1))
    assert pay_statement(statement_id=september.pk, at=OCT_10).paid == 1
    return fresh(commission)


def test_paid_in_october_and_cancelled_in_november_is_a_negative_line_on_novembers_statement(
    brand, ana, paid_in_october
):
    key = caller_of(brand, "alice").key
    september = Statement.objects.get(brand=brand, month=date(2026, 9, 1))
    before = lines(september)

    result = cancel(key, "A-1", at=NOV_12, request_id="req-nov")

    assert result.outcome == "tracked"
    november = Statement.objects.get(brand=brand, month=date(2026, 11, 1))
    assert lines(november) == {("Ana", "USD"): (0, Decimal("0"), 1, Decimal("-10.00"))}
    assert [(t.currency, t.total) for t in summarize(november).totals] == [("USD", Decimal("-10.00"))]
    assert lines(september) == before == {("Ana", "USD"): (1, Decimal("10.00"), 0, Decimal("0"))}
    assert not Statement.objects.filter(brand=brand, month=date(2026, 10, 1)).exists()
    assert Adjustment.objects.get().request_id == "req-nov"


def test_every_change_after_payment_is_kept_and_together_they_undo_the_payment(brand, ana, paid_in_october):
    key = caller_of(brand, "alice").key

    update(key, "A-1", "40", at=NOV_03)  # 10.00 -> 4.00
    update(key, "A-1", "60", at=NOV_12)  # 4.00 -> 6.00: a top-up
    update(key, "A-1", "60", at=NOV_12)  # unchanged: nothing billed
    cancel(key, "A-1", at=DEC_02)  # 6.00 back

    assert list(Adjustment.objects.values_list("reason", "amount", "statement__month")) == [
        ("update", Decimal("-6.00"), date(2026, 11, 1)),
        ("update", Decimal("2.00"), date(2026, 11, 1)),
        ("cancel", Decimal("-6.00"), date(2026, 12, 1)),
    ]
    after = fresh(paid_in_october)
    assert after.paid_amount + sum(Adjustment.objects.values_list("amount", flat=True)) == 0
    assert AmountChange.objects.count() == 3
    november = Statement.objects.get(brand=brand, month=date(2026, 11, 1))
    assert lines(november) == {("Ana", "USD"): (0, Decimal("0"), 2, Decimal("-4.00"))}


def test_a_top_up_is_a_positive_adjustment_and_says_so(brand, ana, paid_in_october):
    key = caller_of(brand, "alice").key

    result = update(key, "A-1", "250.5", at=NOV_12)

    assert result.text == (
        "The commission of order A-1 now follows the new total 250.50 USD. It was already paid: "
        "15.05 USD is added on your statement of November 2026."
    )
    assert Adjustment.objects.get().amount == Decimal("15.05")


def test_an_unchanged_amount_after_payment_bills_nothing(brand, ana, paid_in_october):
    key = caller_of(brand, "alice").key

    result = update(key, "A-1", "100.04", at=NOV_12)  # 10.004 rounds to the 10.00 paid

    assert (result.outcome, result.text) == (
        "tracked",
        "The commission of order A-1 now follows the new total 100.04 USD. "
        "It was already paid; the amount is unchanged, so nothing is billed.",
    )
    assert not Adjustment.objects.exists()
    assert not Statement.objects.filter(month=date(2026, 11, 1)).exists()


def test_a_cancel_after_an_update_to_zero_has_nothing_left_to_claw_back(brand, ana, paid_in_october):
    key = caller_of(brand, "alice").key
    update(key, "A-1", "0", at=NOV_03)

    result = cancel(key, "A-1", at=NOV_12)

    assert (
        result.text
        == "The commission of order A-1 was cancelled after it was paid; nothing was left to claw back."
    )
    assert list(Adjustment.objects.values_list("reason", "amount")) == [("update", Decimal("-10.00"))]
    assert fresh(paid_in_october).state == State.CANCELLED


def test_a_change_in_a_month_already_paid_goes_to_the_next_open_statement(brand, ana, paid_in_october):
    Statement.objects.create(brand=brand, month=date(2026, 11, 1), state="paid", paid_at=NOV_12)

    cancel(caller_of(brand, "alice").key, "A-1", at=NOV_12)

    assert Adjustment.objects.get().statement.month == date(2026, 12, 1)


def test_test_commissions_never_reach_a_statement_or_an_adjustment(client, alice, brand):
    commission = commission_for(brand, order_id="T-1", is_test=True)

    response = post(client, CANCEL, {"order_id": "T-1", "test": True}, alice)

    assert response.json()["outcome"] == "tracked"
    assert (fresh(commission).state, fresh(commission).statement) == (State.CANCELLED, None)
    assert not Statement.objects.exists()
    assert not Adjustment.objects.exists()


# --- races (PostgreSQL) -------------------------------------------------------------------------------------

racing = pytest.mark.usefixtures("postgres_only")


def send(path, body, caller):
    return lambda: Client().post(path, body, content_type="application/json", **caller.headers)


@pytest.mark.django_db(transaction=True)
@racing
@pytest.mark.parametrize("_", range(3), ids=["round-1", "round-2", "round-3"])
def test_a_cancel_racing_the_payment_is_either_unpaid_or_paid_and_clawed_back(brand, prop, _):
    alice = caller_of(brand, "alice")
    creator = factories.CreatorFactory(brand=brand, name="Ana")
    commission = pending(brand, "A-1", creator=creator, amount="10.00", closes_at=OCT_10)
    other = pending(brand, "A-2", creator=creator, amount="3.00", closes_at=OCT_10)
    lock_due_commissions(now=OCT_10)
    october = Statement.objects.get(brand=brand)

    payment, answer = run_together(
        lambda: pay_statement(statement_id=october.pk, at=NOV_03), send(CANCEL, {"order_id": "A-1"}, alice)
    )

    assert payment.done and (answer.status_code, answer.json()["outcome"]) == (200, "tracked")
    after = fresh(commission)
    assert after.state == State.CANCELLED
    assert fresh(other).state == State.PAID
    clawbacks = list(Adjustment.objects.all())
    (total,) = summarize(october).totals
    if after.paid_at is None:  # the cancel came first: never paid, nothing to claw back
        assert (payment.paid, clawbacks, total.total) == (1, [], Decimal("3.00"))
    else:  # paid first: October bills it, the clawback is on the open statement after
        assert (payment.paid, after.paid_amount, total.total) == (2, Decimal("10.00"), Decimal("13.00"))
        assert [(c.amount, c.statement.state) for c in clawbacks] == [(Decimal("-10.00"), "open")]
        assert clawbacks[0].statement != october


@pytest.mark.django_db(transaction=True)
@racing
def test_concurrent_cancels_of_a_paid_commission_claw_back_once(brand, prop):
    alice = caller_of(brand, "alice")
    commission = commission_for(brand, order_id="A-1", state=State.PAID)

    answers = run_together(*[send(CANCEL, {"order_id": "A-1"}, alice)] * 6)

    assert sorted(a.json()["outcome"] for a in answers) == ["already_cancelled"] * 5 + ["tracked"]
    assert fresh(commission).state == State.CANCELLED
    assert list(Adjustment.objects.values_list("amount", flat=True)) == [Decimal("-10.00")]


@pytest.mark.django_db(transaction=True)
@racing
def test_concurrent_updates_of_a_paid_commission_lose_no_difference(brand, prop):
    alice = caller_of(brand, "alice")
    commission = commission_for(brand, order_id="A-1", state=State.PAID)
    totals = ["20", "35", "50", "80", "150", "190"]

    answers = run_together(
        *[send(UPDATE, {"order_id": "A-1", "new_order_amount": t, "currency": "USD"}, alice) for t in totals]
    )

    assert [a.json()["outcome"] for a in answers] == ["tracked"] * len(totals)
    after = fresh(commission)
    assert after.paid_amount + sum(Adjustment.objects.values_list("amount", flat=True)) == after.amount
    assert Adjustment.objects.count() == len(totals)
    # Applied one after the other: each change starts from the amount the previous one left.
    history = list(AmountChange.objects.order_by("changed_at", "id").values_list("old_amount", "new_amount"))
    assert history[0][0] == Decimal("10.00")
    assert all(prev[1] == nxt[0] for prev, nxt in zip(history, history[1:], strict=False))
    assert history[-1][1] == after.amount
