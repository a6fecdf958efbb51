"""Billing (interface 1.6; decisions D5, D7): a live commission locks once returns can no longer change it
and lands on its brand's statement of that month; paying the statement pays its commissions; a cancel or
an update after payment becomes an adjustment carried to the next open statement. Test commissions never
reach any of it (the database holds that too: commission_test_never_billed).

Statement figures are read from their commissions and adjustments, never stored twice. Amounts are
Decimal and per currency: amounts of different currencies are never added up.
"""

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils.text import slugify

from brands.models import Brand
from health.export import Echo, first_line, safe_cell

from . import parsing, services
from .models import Adjustment, Commission, Statement

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


def money(value: Decimal, currency: str) -> Decimal:
    """An amount in the currency's minor units (5.99 USD, 599 JPY) for display and export."""
    return value.quantize(Decimal(1).scaleb(-parsing.currency_exponent(currency)))


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
                services.move_commission(
                    commission, State.LOCKED, at=now, statement=statements[commission.brand_id]
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
            services.move_commission(commission, State.PAID, at=at)
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


# --- reading statements -------------------------------------------------------------------------


def billed_commissions(statement: Statement) -> QuerySet:
    """The commissions a statement bills, each with `billed`: its amount, or the amount paid once paid.

    Locked ones (open statement) and paid ones (paid statement), including those cancelled after
    payment (their clawback is an adjustment elsewhere); a commission cancelled before payment is not billed.
    """
    return (
        Commission.objects.filter(statement=statement)
        .filter(Commission.BILLED)
        .annotate(billed=Coalesce("paid_amount", "amount"))
    )


@dataclass
class Figures:
    """Commissions and adjustments of one currency, on a line (one creator) or a whole statement."""

    currency: str
    commissions: int = 0
    commission_total: Decimal = Decimal(0)
    adjustments: int = 0
    adjustment_total: Decimal = Decimal(0)

    @property
    def total(self) -> Decimal:
        return money(self.commission_total + self.adjustment_total, self.currency)


@dataclass
class Line(Figures):
    creator_id: int = 0
    creator: str = ""


@dataclass
class Summary:
    statement: Statement
    lines: list[Line]  # one per creator and currency, by creator name
    totals: list[Figures]  # one per currency, by currency code


def summarize(statement: Statement) -> Summary:
    """A statement's lines per creator and currency and its totals per currency (two grouped queries)."""
    lines: dict[tuple[int, str], Line] = {}

    def line(creator_id, creator, currency) -> Line:
        key = (creator_id, currency)
        if key not in lines:
            lines[key] = Line(currency=currency, creator_id=creator_id, creator=creator)
        return lines[key]

    for row in (
        billed_commissions(statement)
        .values("creator_id", "creator__name", "currency")
        .annotate(count=Count("id"), total=Sum("billed"))
        .order_by()
    ):
        found = line(row["creator_id"], row["creator__name"], row["currency"])
        found.commissions, found.commission_total = row["count"], money(row["total"], row["currency"])
    for row in (
        Adjustment.objects.filter(statement=statement)
        .values("commission__creator_id", "commission__creator__name", "currency")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    ):
        found = line(row["commission__creator_id"], row["commission__creator__name"], row["currency"])
        found.adjustments, found.adjustment_total = row["count"], money(row["total"], row["currency"])
    return Summary(
        statement,
        sorted(lines.values(), key=lambda x: (x.creator.lower(), x.creator_id, x.currency)),
        _totals(lines.values()),
    )


def _totals(lines: Iterable[Figures]) -> list[Figures]:
    by_currency: dict[str, Figures] = {}
    for line in lines:
        total = by_currency.setdefault(line.currency, Figures(currency=line.currency))
        total.commissions += line.commissions
        total.commission_total += line.commission_total
        total.adjustments += line.adjustments
        total.adjustment_total += line.adjustment_total
    return [by_currency[currency] for currency in sorted(by_currency)]


def totals_of(statements: list[Statement]) -> dict[int, list[Figures]]:
    """Totals per currency of several statements (two grouped queries), by statement id."""
    ids = [statement.pk for statement in statements]
    figures: dict[tuple[int, str], Figures] = {}
    commissions = (
        Commission.objects.filter(statement_id__in=ids)
        .filter(Q(state=State.LOCKED) | Q(paid_at__isnull=False))
        .values("statement_id", "currency")
        .annotate(count=Count("id"), total=Sum(Coalesce("paid_amount", "amount")))
        .order_by()
    )
    for row in commissions:
        found = figures.setdefault((row["statement_id"], row["currency"]), Figures(currency=row["currency"]))
        found.commissions, found.commission_total = row["count"], money(row["total"], row["currency"])
    adjustments = (
        Adjustment.objects.filter(statement_id__in=ids)
        .values("statement_id", "currency")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    )
    for row in adjustments:
        found = figures.setdefault((row["statement_id"], row["currency"]), Figures(currency=row["currency"]))
        found.adjustments, found.adjustment_total = row["count"], money(row["total"], row["currency"])
    result: dict[int, list[Figures]] = {pk: [] for pk in ids}
    for (statement_id, _), found in sorted(figures.items()):
        result[statement_id].append(found)
    return result


def statements_of(brand) -> list[Statement]:
    """A brand's statements, newest month first."""
    return list(Statement.objects.filter(brand=brand).order_by("-month"))


def statement_of(brands: QuerySet, pk: int) -> Statement | None:
    """Statement `pk` if it belongs to one of `brands` (the brands the reader may see), else None."""
    return Statement.objects.filter(brand__in=brands, pk=pk).select_related("brand").first()


def statement_commissions(statement: Statement) -> QuerySet:
    """The commissions behind a statement's lines, by creator and order."""
    return (
        billed_commissions(statement)
        .select_related("order", "creator")
        .order_by("creator__name", "order__order_id", "id")
    )


def statement_adjustments(statement: Statement) -> QuerySet:
    """The adjustments carried to a statement, oldest first."""
    return (
        Adjustment.objects.filter(statement=statement)
        .select_related("commission__order", "commission__creator", "commission__statement")
        .order_by("created_at", "id")
    )


# --- CSV export -----------------------------------------------------------------------------------

CSV_HEADER = [
    "statement_month",
    "kind",
    "order_id",
    "creator",
    "currency",
    "amount",
    "commission_state",
    "locked_at",
    "paid_at",
    "adjustment_reason",
    "adjusted_at",
    "paid_on_statement",
    "request_id",
]


def _iso(value: datetime | None) -> str:
    return value.isoformat() if value else ""


def csv_lines(statement: Statement) -> Iterator[str]:
    """Every commission and adjustment behind a statement, one CSV row each, streamed.

    Totals are not rows: a spreadsheet sums `amount` per currency, and never across currencies. Text a
    brand or a caller chose is guarded against formula injection; amounts stay numbers (negative ones too).
    """
    writer = csv.writer(Echo())
    month = f"{statement.month:%Y-%m}"
    yield first_line(writer, CSV_HEADER)
    for commission in statement_commissions(statement).iterator(chunk_size=2000):
        yield writer.writerow(
            [
                month,
                "commission",
                safe_cell(commission.order.order_id),
                safe_cell(commission.creator.name),
                commission.currency,
                money(commission.billed, commission.currency),
                commission.state,
                _iso(commission.locked_at),
                _iso(commission.paid_at),
                "",
                "",
                "",
                "",
            ]
        )
    for adjustment in statement_adjustments(statement).iterator(chunk_size=2000):
        commission = adjustment.commission
        yield writer.writerow(
            [
                month,
                "adjustment",
                safe_cell(commission.order.order_id),
                safe_cell(commission.creator.name),
                adjustment.currency,
                money(adjustment.amount, adjustment.currency),
                commission.state,
                _iso(commission.locked_at),
                _iso(commission.paid_at),
                adjustment.reason,
                _iso(adjustment.created_at),
                f"{commission.statement.month:%Y-%m}" if commission.statement else "",
                safe_cell(adjustment.request_id),
            ]
        )


def csv_filename(statement: Statement) -> str:
    return f"statement-{slugify(statement.brand.name) or statement.brand_id}-{statement.month:%Y-%m}.csv"
