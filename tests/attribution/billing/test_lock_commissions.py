"""Locking (docs/billing.md): `lock_commissions` moves pending live commissions to locked
once their order's return window closed, onto the brand's statement of that month. Time is a parameter."""

import threading
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from attribution.billing.statements import summarize
from attribution.billing.writers import lock_due_commissions
from attribution.models import Commission, Statement
from tests import factories
from tests.attribution.concurrently import run_together
from tests.attribution.keyed import CANCEL, caller_of, order_url

State = Commission.State
NOW = datetime(2026, 10, 15, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def commission(brand, order_id, *, received_at, closes_at=None, is_test=False, creator=None, amount="10.00"):
    """A pending commission on an order received at `received_at` with the brand's returnWindowClosesAt."""
    order = factories.OrderFactory(
        brand=brand,
        order_id=order_id,
        is_test=is_test,
        received_at=received_at,
        return_window_closes_at=closes_at,
    )
    return factories.CommissionFactory(
        order=order,
        creator=creator or factories.CreatorFactory(brand=brand),
        amount=Decimal(amount),
        created_at=received_at,
        updated_at=received_at,
    )


def state_of(*commissions) -> list[str]:
    return [Commission.objects.get(pk=c.pk).state for c in commissions]


# --- when a commission locks --------------------------------------------------------------------------------


def test_it_locks_a_commission_once_the_return_window_the_brand_sent_has_closed(brand):
    received = NOW - timedelta(days=3)
    closed = commission(brand, "A-1", received_at=received, closes_at=NOW - SECOND)
    closing_now = commission(brand, "A-2", received_at=received, closes_at=NOW)
    still_open = commission(brand, "A-3", received_at=received, closes_at=NOW + SECOND)

    run = lock_due_commissions(now=NOW)

    assert run.locked == 2
    assert state_of(closed, closing_now, still_open) == [State.LOCKED, State.LOCKED, State.PENDING]
    october = Statement.objects.get(brand=brand, month=date(2026, 10, 1))
    locked = Commission.objects.get(pk=closed.pk)
    assert (locked.locked_at, locked.updated_at, locked.statement) == (NOW, NOW, october)
    assert (locked.amount, locked.paid_at, locked.paid_amount) == (Decimal("10.00"), None, None)
    assert Commission.objects.get(pk=still_open.pk).statement is None

    later = lock_due_commissions(now=NOW + SECOND)

    assert later.locked == 1
    assert state_of(still_open) == [State.LOCKED]


def test_without_a_return_window_it_locks_the_brands_lock_period_after_the_order(brand, other_brand):
    brand.lock_period_days = 14
    brand.save()
    other_brand.lock_period_days = 30
    other_brand.save()
    due = commission(brand, "A-1", received_at=NOW - timedelta(days=14))
    almost = commission(brand, "A-2", received_at=NOW - timedelta(days=14) + SECOND)
    longer_period = commission(other_brand, "G-1", received_at=NOW - timedelta(days=14))

    lock_due_commissions(now=NOW)

    assert state_of(due, almost, longer_period) == [State.LOCKED, State.PENDING, State.PENDING]
    lock_due_commissions(now=NOW + timedelta(days=16))
    assert state_of(almost, longer_period) == [State.LOCKED, State.LOCKED]


def test_the_return_window_the_brand_sent_wins_over_its_lock_period(brand):
    brand.lock_period_days = 30
    brand.save()
    received = NOW - timedelta(days=40)  # the lock period alone would have locked both
    later_window = commission(brand, "A-1", received_at=received, closes_at=NOW + timedelta(days=5))
    earlier_window = commission(brand, "A-2", received_at=NOW - timedelta(days=2), closes_at=NOW - SECOND)

    lock_due_commissions(now=NOW)

    assert state_of(later_window, earlier_window) == [State.PENDING, State.LOCKED]


def test_test_commissions_never_lock_into_billing(brand):
    test = commission(
        brand, "T-1", received_at=NOW - timedelta(days=90), closes_at=NOW - timedelta(days=60), is_test=True
    )

    run = lock_due_commissions(now=NOW)

    assert run.locked == 0
    after = Commission.objects.get(pk=test.pk)
    assert (after.state, after.locked_at, after.statement) == (State.PENDING, None, None)
    assert not Statement.objects.exists()


def test_it_leaves_cancelled_and_locked_commissions_alone_and_a_second_run_does_nothing(brand):
    received = NOW - timedelta(days=40)
    cancelled = commission(brand, "A-1", received_at=received, closes_at=NOW - SECOND)
    Commission.objects.filter(pk=cancelled.pk).update(
        state=State.CANCELLED, cancelled_at=NOW - timedelta(days=1)
    )
    due = commission(brand, "A-2", received_at=received, closes_at=NOW - SECOND)

    first = lock_due_commissions(now=NOW)
    second = lock_due_commissions(now=NOW + timedelta(hours=1))

    assert (first.locked, second.locked, second.batches) == (1, 0, 0)
    assert state_of(cancelled, due) == [State.CANCELLED, State.LOCKED]
    assert Commission.objects.get(pk=cancelled.pk).locked_at is None
    assert Commission.objects.get(pk=due.pk).locked_at == NOW  # not moved by the second run


def test_it_works_in_batches_and_stops_after_max_batches(brand):
    due = [commission(brand, f"A-{i}", received_at=NOW - timedelta(days=40)) for i in range(7)]

    first = lock_due_commissions(now=NOW, batch_size=3, max_batches=2)

    assert (first.locked, first.batches) == (6, 2)
    assert state_of(*due).count(State.PENDING) == 1

    rest = lock_due_commissions(now=NOW, batch_size=3)

    assert (rest.locked, rest.batches) == (1, 1)
    assert set(state_of(*due)) == {State.LOCKED}


def test_each_brand_gets_its_own_statement_of_the_month_it_locked_in(brand, other_brand):
    received = NOW - timedelta(days=40)
    acme = commission(brand, "A-1", received_at=received)
    globex = commission(other_brand, "G-1", received_at=received)
    november = commission(brand, "A-2", received_at=received, closes_at=datetime(2026, 11, 1, tzinfo=UTC))

    run = lock_due_commissions(now=NOW)
    lock_due_commissions(now=datetime(2026, 11, 1, 0, 5, tzinfo=UTC))

    assert len(run.statements) == 2
    statements = {
        c.order.order_id: Commission.objects.get(pk=c.pk).statement for c in (acme, globex, november)
    }
    assert (statements["A-1"].brand, statements["A-1"].month) == (brand, date(2026, 10, 1))
    assert (statements["G-1"].brand, statements["G-1"].month) == (other_brand, date(2026, 10, 1))
    assert (statements["A-2"].brand, statements["A-2"].month) == (brand, date(2026, 11, 1))
    assert Statement.objects.filter(state=Statement.State.OPEN).count() == 3


def test_a_commission_locking_after_its_month_was_paid_goes_to_the_next_open_statement(brand):
    Statement.objects.create(brand=brand, month=date(2026, 10, 1), state="paid", paid_at=NOW - SECOND)
    late = commission(brand, "A-1", received_at=NOW - timedelta(days=40))

    lock_due_commissions(now=NOW)

    locked = Commission.objects.get(pk=late.pk)
    assert (locked.state, locked.locked_at) == (State.LOCKED, NOW)
    assert (locked.statement.month, locked.statement.state) == (date(2026, 11, 1), Statement.State.OPEN)


def test_a_run_takes_a_bounded_number_of_queries_per_commission(
    brand, other_brand, django_assert_max_num_queries
):
    for i in range(10):
        commission(brand if i % 2 else other_brand, f"A-{i}", received_at=NOW - timedelta(days=40))

    # Per batch: its transaction (2 in a test: a savepoint and its release), the lock periods in use and
    # the batch itself; per new statement: a lookup and an insert in a savepoint (4); per commission: its
    # move with its history row, one statement on PostgreSQL (elsewhere two, in a savepoint).
    per_commission = 1 if connection.vendor == "postgresql" else 4
    with django_assert_max_num_queries(4 + 4 * 2 + 10 * per_commission):
        run = lock_due_commissions(now=NOW, batch_size=50)

    assert run.locked == 10


def test_the_read_api_shows_when_a_commission_locked_and_on_which_statement(client, brand, prop):
    alice = caller_of(brand, "alice")
    commission(brand, "A-1", received_at=NOW - timedelta(days=40))
    lock_due_commissions(now=NOW)

    body = client.get(order_url("A-1"), **alice.headers).json()["commission"]

    assert (body["state"], body["locked_at"], body["statement"]) == ("locked", NOW.isoformat(), "2026-10")
    assert (body["paid_at"], body["paid_amount"], body["adjustments"]) == (None, None, [])


# --- the command --------------------------------------------------------------------------------------------


def test_the_command_locks_what_is_due_now_and_ends_with_a_one_line_summary(brand):
    now = timezone.now()
    due = commission(brand, "A-1", received_at=now - timedelta(days=3), closes_at=now - timedelta(hours=1))
    commission(brand, "A-2", received_at=now - timedelta(days=3), closes_at=now + timedelta(days=1))
    out = StringIO()

    call_command("lock_commissions", stdout=out)

    assert out.getvalue() == (
        "Locked 1 commissions in 1 batches onto 1 statements; "
        "0 still due (held by another transaction or past --max-batches).\n"
    )
    assert Commission.objects.get(pk=due.pk).state == State.LOCKED
    second = StringIO()
    call_command("lock_commissions", stdout=second)
    assert second.getvalue().startswith("Locked 0 commissions in 0 batches onto 0 statements; 0 still due")


def test_the_command_reports_what_max_batches_left_due(brand):
    now = timezone.now()
    for i in range(3):
        commission(brand, f"A-{i}", received_at=now - timedelta(days=3), closes_at=now - timedelta(hours=1))
    out = StringIO()

    call_command("lock_commissions", "--batch-size", "2", "--max-batches", "1", stdout=out)

    assert out.getvalue().startswith("Locked 2 commissions in 1 batches onto 1 statements; 1 still due")


def test_the_command_refuses_a_batch_size_below_one(db):
    with pytest.raises(CommandError, match="--batch-size must be at least 1"):
        call_command("lock_commissions", "--batch-size", "0")


# --- concurrency (PostgreSQL) -------------------------------------------------------------------------------


def racing_marks(test):
    """A race on PostgreSQL: real transactions, each thread on its own connection."""
    return pytest.mark.usefixtures("postgres_only")(pytest.mark.django_db(transaction=True)(test))


def _cancel(caller, order_id):
    def send():
        return Client().post(
            CANCEL, {"order_id": order_id}, content_type="application/json", **caller.headers
        )

    return send


@pytest.mark.parametrize("_", range(3), ids=["round-1", "round-2", "round-3"])
@racing_marks
def test_lock_runs_racing_cancels_leave_each_commission_cancelled_or_locked_never_both_never_lost(
    brand, prop, _
):
    alice = caller_of(brand, "alice")
    now = timezone.now()
    made = [
        commission(brand, f"A-{i}", received_at=now - timedelta(days=40), amount=f"{i + 1}.00")
        for i in range(12)
    ]
    cancelled_ids = {c.pk for c in made[::2]}
    lock = lambda: lock_due_commissions(now=now, batch_size=2)  # noqa: E731

    results = run_together(lock, lock, *[_cancel(alice, c.order.order_id) for c in made[::2]])

    runs, answers = results[:2], results[2:]
    assert [(a.status_code, a.json()["outcome"]) for a in answers] == [(200, "tracked")] * len(answers)
    after = {c.pk: c for c in Commission.objects.filter(pk__in=[c.pk for c in made])}
    assert {pk for pk, c in after.items() if c.state == State.CANCELLED} == cancelled_ids
    assert {pk for pk, c in after.items() if c.state == State.LOCKED} == {c.pk for c in made} - cancelled_ids
    # Each commission locked at most once, by exactly one run; a cancel after a lock comes after it.
    assert sum(run.locked for run in runs) == sum(1 for c in after.values() if c.locked_at is not None)
    for c in after.values():
        if c.state == State.CANCELLED and c.locked_at is not None:
            assert c.locked_at <= c.cancelled_at
    # The statement bills exactly the commissions that stayed locked.
    statement = Statement.objects.get(brand=brand)
    expected = sum(
        (Decimal(f"{i + 1}.00") for i, c in enumerate(made) if c.pk not in cancelled_ids), Decimal(0)
    )
    (usd,) = summarize(statement).totals
    assert (usd.currency, usd.commissions, usd.total) == ("USD", 6, expected)


@racing_marks
def test_four_runs_at_once_lock_each_commission_exactly_once_onto_one_statement(brand):
    now = timezone.now()
    made = [commission(brand, f"A-{i}", received_at=now - timedelta(days=40)) for i in range(40)]
    lock = lambda: lock_due_commissions(now=now, batch_size=3)  # noqa: E731

    runs = run_together(lock, lock, lock, lock)

    assert sum(run.locked for run in runs) == 40
    assert set(Commission.objects.filter(pk__in=[c.pk for c in made]).values_list("state", "locked_at")) == {
        (State.LOCKED, now)
    }
    assert Statement.objects.filter(brand=brand).count() == 1


@racing_marks
def test_a_run_skips_a_commission_another_transaction_holds_instead_of_waiting(brand):
    now = timezone.now()
    held, free = (commission(brand, f"A-{i}", received_at=now - timedelta(days=40)) for i in range(2))
    holding, release = threading.Event(), threading.Event()
    waited_out = []

    def hold():  # a cancel in flight: the row is locked until its transaction ends
        with transaction.atomic():
            Commission.objects.select_for_update().get(pk=held.pk)
            holding.set()
            waited_out.append(not release.wait(timeout=10))

    holder = threading.Thread(target=lambda: (hold(), connection.close()))
    holder.start()
    try:
        assert holding.wait(timeout=10)
        run = lock_due_commissions(now=now)
        still_held = not release.is_set() and holder.is_alive()
    finally:
        release.set()
        holder.join(timeout=30)

    assert still_held and waited_out == [False], "the run waited for the held row"
    assert run.locked == 1
    assert state_of(held, free) == [State.PENDING, State.LOCKED]
    assert lock_due_commissions(now=now).locked == 1  # the next run locks it
    assert state_of(held) == [State.LOCKED]
