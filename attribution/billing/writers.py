"""Billing, the writers (docs/billing.md): a live commission locks once returns can no longer change it
and lands on its brand's statement of that month; paying the statement pays its commissions; a cancel or
an update after payment becomes an adjustment carried to the next open statement. Test commissions never
reach any of it (the database holds that too: commission_test_never_billed).

Every state move goes through Commission.move_to. Statement figures are read (billing.statements) from their
commissions and adjustments, never stored twice.
"""

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from brands.models import Brand

from ..models import Adjustment, Commission, CommissionStateChange, Statement
from ..plans import tiers

LOCK_BATCH_SIZE = 500
State = Commission.State


# --- months -----------------------------------------------------------------------------------


def month_of(at: datetime) -> date:
    """The first day of `at`'s month in UTC: the statement month of a lock or an adjustment at `at`."""
    at = at.astimezone(UTC)
    return date(at.year, at.month, 1)


def next_month(month: date) -> date:
    return date(month.year + (month.month == 12), month.month % 12 + 1, 1)


def month_end(month: date) -> datetime:
    """The first instant after `month` (UTC)."""
    following = next_month(month)
    return datetime(following.year, following.month, 1, tzinfo=UTC)


# --- statements ---------------------------------------------------------------------------------


def open_statement(*, brand_id: int, at: datetime) -> Statement:
    """The open statement a lock or an adjustment at `at` goes to, row-locked until the transaction ends.

    It is the statement of `at`'s month (built here on first use, idempotently), or the first open one
    after it when that month is already paid: nothing lands on a paid statement, whatever the timing.
    """
    month = month_of(at)
    while True:
        statement = Statement.objects.select_for_update().filter(brand_id=brand_id, month=month).first()
        if statement is None:
            try:
                with transaction.atomic():
                    # A row this transaction inserts is its own until commit: no lock to take.
                    statement = Statement.objects.create(brand_id=brand_id, month=month)
            except IntegrityError:
                # Another worker built it first (statement_one_per_brand_month): lock theirs.
                statement = Statement.objects.select_for_update().get(brand_id=brand_id, month=month)
        if statement.state == Statement.State.OPEN:
            return statement
        month = next_month(month)


# --- locking ------------------------------------------------------------------------------------


def due_commissions(now: datetime) -> QuerySet:
    """Pending live commissions whose return window closed by `now`: the order's returnWindowClosesAt,
    or its receipt plus the brand's lock period when the brand sent none."""
    closed = Q(order__return_window_closes_at__lte=now)
    # One clause per lock period in use (a handful of values): portable, where SQLite cannot multiply
    # a column by an interval, and each clause is a plain comparison on the order's receipt time.
    for days in Brand.objects.order_by().values_list("lock_period_days", flat=True).distinct():
        closed |= Q(
            order__return_window_closes_at__isnull=True,
            brand__lock_period_days=days,
            order__received_at__lte=now - timedelta(days=days),
        )
    return Commission.objects.filter(closed, state=State.PENDING, is_test=False)


@dataclass
class LockRun:
    locked: int = 0
    batches: int = 0
    statements: set[int] = field(default_factory=set)


def lock_due_commissions(*, now: datetime, batch_size: int = LOCK_BATCH_SIZE, max_batches=None) -> LockRun:
    """Move due commissions pending -> locked onto their brand's open statement, one transaction per batch.

    Rows another transaction holds (a cancel in flight, a second run) are skipped, not waited for: they
    are that transaction's, and a later run locks whatever is still due. Safe to run twice at once.
    """
    run = LockRun()
    while max_batches is None or run.batches < max_batches:
        with transaction.atomic():
            batch = list(
                due_commissions(now)
                .select_for_update(skip_locked=True, of=("self",))
                .order_by("id")[:batch_size]
            )
            if not batch:
                break
            # Statements locked in brand order by every run, so two runs never wait on each other in a cycle.
            statements = {
                brand_id: open_statement(brand_id=brand_id, at=now)
                for brand_id in sorted({commission.brand_id for commission in batch})
            }
            for commission in batch:
                commission.move_to(
                    State.LOCKED,
                    at=now,
                    statement=statements[commission.brand_id],
                    cause=CommissionStateChange.Cause.LOCK,
                )
        run.batches += 1
        run.locked += len(batch)
        run.statements.update(statement.pk for statement in statements.values())
        if len(batch) < batch_size:
            break
    return run


# --- payment ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    statement: Statement
    paid: int  # commissions moved locked -> paid
    refused: str = ""  # why nothing was paid; empty when the statement was paid now

    @property
    def done(self) -> bool:
        return not self.refused


def pay_statement(*, statement_id: int, at: datetime, user=None) -> Payment:
    """Mark a statement paid and move its locked commissions to paid, in one transaction under row locks.

    A statement is paid once its month is over, so it holds every commission locked in that month.
    """
    with transaction.atomic():
        statement = (
            Statement.objects.select_for_update(of=("self",)).select_related("brand").get(pk=statement_id)
        )
        if statement.state == Statement.State.PAID:
            return Payment(
                statement, 0, f"{statement.label} was already paid on {statement.paid_at:%Y-%m-%d}."
            )
        if at < month_end(statement.month):
            return Payment(
                statement,
                0,
                f"{statement.label} is not over yet: its statement can be paid from "
                f"{month_end(statement.month):%Y-%m-%d}.",
            )
        # A cancel or update holding one of these rows finishes first; its result is what gets paid.
        commissions = list(
            Commission.objects.select_for_update()
            .filter(statement=statement, state=State.LOCKED)
            .order_by("id")
        )
        for commission in commissions:
            commission.move_to(State.PAID, at=at, cause=CommissionStateChange.Cause.PAYMENT)
        # issue 56: a retroactive tier reached this month pays the earlier orders' difference on it.
        tiers.settle(statement, at=at)
        statement.state, statement.paid_at, statement.paid_by = Statement.State.PAID, at, user
        statement.save(update_fields=["state", "paid_at", "paid_by"])
    return Payment(statement, len(commissions))


# --- adjustments --------------------------------------------------------------------------------


def carry_adjustment(
    commission: Commission, *, amount: Decimal, reason: Adjustment.Reason, at: datetime, request_id: str
) -> Adjustment | None:
    """Bill a change of a paid commission on the next open statement. The caller holds the commission's
    row lock inside its transaction. A zero change bills nothing."""
    if amount == 0:
        return None
    statement = open_statement(brand_id=commission.brand_id, at=at)
    return Adjustment.objects.create(
        brand_id=commission.brand_id,
        commission=commission,
        statement=statement,
        amount=amount,
        currency=commission.currency,
        reason=reason,
        created_at=at,
        request_id=request_id,
    )
