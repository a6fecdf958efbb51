"""A run's totals, computed by the database from its stored rows so that memory does not grow with the
file: the repeated order ids, the counts, the capture rate by day, the commission at stake, and the orders
received that the book lacks."""

from datetime import UTC

from django.db.models import (
    CharField,
    Count,
    F,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
)
from django.db.models.functions import Cast, Concat, TruncDate

from attribution.models import BookRow, Order, Reconciliation
from attribution.money import money

from .rows import BATCH, batches

Status = BookRow.Status


def mark_repeats(run: Reconciliation) -> None:
    """A book order id (in one namespace) counts once: its later rows are invalid, naming the first. One
    aggregate over the run's rows finds the repeated ids; they are marked a thousand ids per UPDATE, so a
    book of repeats costs a statement per thousand of them, never one per row."""
    rows = BookRow.objects.filter(reconciliation=run).exclude(status=Status.INVALID)
    repeated = (
        rows.values("order_id", "is_test")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("order_id", flat=True)
        .order_by()
    )
    first = (
        rows.filter(order_id=OuterRef("order_id"), is_test=OuterRef("is_test"))
        .order_by("line")
        .values("line")[:1]
    )
    for chunk in batches(repeated.iterator(), BATCH):
        # A row is a repeat when its namespace holds an earlier one: the subquery keeps them apart.
        rows.filter(order_id__in=chunk).alias(first_line=Subquery(first)).filter(
            line__gt=F("first_line")
        ).update(
            status=Status.INVALID,
            received=False,
            commission=None,
            detail=Concat(
                Value("The order id repeats line "),
                Cast(Subquery(first), output_field=CharField()),
                Value("; only that row counts."),
                output_field=TextField(),
            ),
        )


def summarize(run: Reconciliation) -> None:
    rows = BookRow.objects.filter(reconciliation=run)
    counts = dict(rows.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    for status in Status.values:
        setattr(run, status, counts.get(status, 0))
    valid = rows.exclude(status=Status.INVALID)
    figures = valid.aggregate(first=Min("ordered_at"), last=Max("ordered_at"))
    run.period_start, run.period_end = figures["first"], figures["last"]
    # The capture rate counts the orders the book completed (docs/decisions.md, "Reconciliation: the
    # capture rate and its normal"): a cancelled one may never have reached the thank-you page.
    completed = valid.filter(cancelled=False)
    captured = completed.aggregate(book=Count("id"), received=Count("id", filter=Q(received=True)))
    run.book_orders, run.received = captured["book"], captured["received"]
    run.daily_capture = {
        day.isoformat(): [book, received]
        for day, book, received in completed.filter(ordered_at__isnull=False)
        .annotate(day=TruncDate("ordered_at", tzinfo=UTC))
        .values("day")
        .annotate(book=Count("id"), received=Count("id", filter=Q(received=True)))
        .values_list("day", "book", "received")
        .order_by("day")
    }
    run.commission_at_risk = _per_currency(rows.filter(status=Status.MISSING))
    run.commission_difference = _per_currency(rows.filter(status=Status.AMOUNT_MISMATCH))
    run.not_in_book = not_in_book(run).count()


def _per_currency(rows) -> list[dict]:
    sums = (
        rows.filter(commission__isnull=False)
        .values("currency")
        .annotate(total=Sum("commission"))
        .order_by("currency")
    )
    return [
        {"currency": s["currency"], "amount": money(s["total"], s["currency"])} for s in sums if s["total"]
    ]


def not_in_book(run: Reconciliation) -> QuerySet:
    """The live orders received from the book's first ordered_at to its last that the book lacks: the run's
    `not_in_book` counts them, the Reconcile page lists them. An export ends when it was made: an order
    received after its last order is newer than the book, not missing from it."""
    if run.period_start is None:
        return Order.objects.none()
    in_book = BookRow.objects.filter(reconciliation=run, is_test=False).values("order_id")
    # order_brand_time_idx (brand, -received_at): the period's orders, against the run's ids read by
    # book_row_status_idx and hashed once.
    return Order.objects.filter(
        brand_id=run.brand_id,
        is_test=False,
        received_at__gte=run.period_start,
        received_at__lte=run.period_end,
    ).exclude(order_id__in=in_book)
