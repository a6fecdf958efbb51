"""Reads behind the read API, the statement pages, the admin and the statement CSV: what a brand's
order and commission look like from outside, and a statement's figures, lines and rows.

Statement figures are read from their commissions and adjustments, never stored twice. Amounts are
Decimal and per currency: amounts of different currencies are never added up.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from decimal import Decimal

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils.text import slugify

from config.lib.csvfiles import safe_cell, stream

from .models import Adjustment, Commission, Order, Statement
from .money import in_minor_units, money, plain
from .review import holds as review_holds
from .review.runner import holds_in

State = Commission.State


# --- the read API ---------------------------------------------------------------------------------


def order_for_reconciliation(*, brand_id: int, order_id: str, is_test: bool) -> dict | None:
    """The read API's view of a brand's own order (docs/api.md, "Read API"); None for another brand's or unknown."""
    order = (
        Order.objects.select_related("commission__statement")
        .filter(brand_id=brand_id, order_id=order_id, is_test=is_test)
        .first()
    )
    if order is None:
        return None
    commission = getattr(order, "commission", None)
    body = {
        "order": {
            "order_id": order.order_id,
            "amount": plain(order.amount),
            "currency": order.currency,
            "is_test": order.is_test,
            "outcome": order.outcome,
            "received_at": order.received_at.isoformat(),
            "trace": order.trace,
        },
        "commission": None,
    }
    if commission is not None:
        body["commission"] = {
            "state": commission.state,
            "amount": money(commission.amount, commission.currency),
            "currency": commission.currency,
            "rate_percent": str(commission.rate_percent),
            "order_amount": plain(commission.order_amount),
            "created_at": commission.created_at.isoformat(),
            "cancelled_at": commission.cancelled_at.isoformat() if commission.cancelled_at else None,
            "locked_at": commission.locked_at.isoformat() if commission.locked_at else None,
            "paid_at": commission.paid_at.isoformat() if commission.paid_at else None,
            "paid_amount": money(commission.paid_amount, commission.currency)
            if commission.paid_amount is not None
            else None,
            "statement": f"{billed.month:%Y-%m}" if (billed := commission.billed_statement) else None,
            "state_changes": [
                {
                    "changed_at": m.changed_at.isoformat(),
                    "from": m.from_state,
                    "to": m.to_state,
                    "cause": m.cause,
                    "request_id": m.request_id,
                }
                for m in commission.state_changes.all()
            ]
            # A pending commission has no moves unless a release moved it back (issue 38), which changed it
            # since its creation; an untouched one skips the query.
            if commission.state != State.PENDING or commission.updated_at != commission.created_at
            else [],
            # issue 38: its review holds, read only when its trace says a rule held it (docs/review.md).
            "holds": review_holds.shown_all(commission) if holds_in(order.trace) else [],
            "history": [
                {
                    "changed_at": c.changed_at.isoformat(),
                    "old_order_amount": plain(c.old_order_amount),
                    "new_order_amount": plain(c.new_order_amount),
                    "old_amount": money(c.old_amount, commission.currency),
                    "new_amount": money(c.new_amount, commission.currency),
                    "request_id": c.request_id,
                }
                for c in commission.amount_changes.all()
            ],
            # Only a paid commission has adjustments: other reads skip the query.
            "adjustments": [
                {
                    "created_at": a.created_at.isoformat(),
                    "reason": a.reason,
                    "amount": money(a.amount, a.currency),
                    "currency": a.currency,
                    "statement": f"{a.statement.month:%Y-%m}",
                    "request_id": a.request_id,
                }
                for a in commission.adjustments.select_related("statement")
            ]
            if commission.paid_at is not None
            else [],
        }
    return body


# --- statements -----------------------------------------------------------------------------------


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
        return in_minor_units(self.commission_total + self.adjustment_total, self.currency)


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
        found.commissions, found.commission_total = (
            row["count"],
            in_minor_units(row["total"], row["currency"]),
        )
    for row in (
        Adjustment.objects.filter(statement=statement)
        .values("commission__creator_id", "commission__creator__name", "currency")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    ):
        found = line(row["commission__creator_id"], row["commission__creator__name"], row["currency"])
        found.adjustments, found.adjustment_total = (
            row["count"],
            in_minor_units(row["total"], row["currency"]),
        )
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
        found.commissions, found.commission_total = (
            row["count"],
            in_minor_units(row["total"], row["currency"]),
        )
    adjustments = (
        Adjustment.objects.filter(statement_id__in=ids)
        .values("statement_id", "currency")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    )
    for row in adjustments:
        found = figures.setdefault((row["statement_id"], row["currency"]), Figures(currency=row["currency"]))
        found.adjustments, found.adjustment_total = (
            row["count"],
            in_minor_units(row["total"], row["currency"]),
        )
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
    "time_zone",
]


def csv_lines(statement: Statement, *, zone: tzinfo = UTC) -> Iterator[str]:
    """Every commission and adjustment behind a statement, one CSV row each, streamed.

    Totals are not rows: a spreadsheet sums `amount` per currency, and never across currencies. Text a
    brand or a caller chose is guarded against formula injection; amounts stay numbers (negative ones too).
    Times are in `zone` with their UTC offset, and the zone is named in the last column.
    """
    return stream(CSV_HEADER, _csv_rows(statement, zone))


def _csv_rows(statement: Statement, zone: tzinfo) -> Iterator[list]:
    month = f"{statement.month:%Y-%m}"
    for commission in statement_commissions(statement).iterator(chunk_size=2000):
        yield _csv_row(month, zone, commission, in_minor_units(commission.billed, commission.currency))
    for adjustment in statement_adjustments(statement).iterator(chunk_size=2000):
        amount = in_minor_units(adjustment.amount, adjustment.currency)
        yield _csv_row(month, zone, adjustment.commission, amount, adjustment)


def _csv_row(
    month: str, zone: tzinfo, commission: Commission, amount: Decimal, adjustment: Adjustment | None = None
) -> list:
    """One line of CSV_HEADER: a commission as billed, or an adjustment carried to the statement; times in
    `zone` with their offset."""

    def iso(value: datetime | None) -> str:
        return value.astimezone(zone).isoformat() if value else ""

    billed_on = commission.statement if adjustment is not None else None
    return [
        month,
        "adjustment" if adjustment is not None else "commission",
        safe_cell(commission.order.order_id),
        safe_cell(commission.creator.name),
        commission.currency,
        amount,
        commission.state,
        iso(commission.locked_at),
        iso(commission.paid_at),
        adjustment.reason if adjustment is not None else "",
        iso(adjustment.created_at) if adjustment is not None else "",
        f"{billed_on.month:%Y-%m}" if billed_on is not None else "",
        safe_cell(adjustment.request_id) if adjustment is not None else "",
        str(zone),
    ]


def csv_filename(statement: Statement) -> str:
    return f"statement-{slugify(statement.brand.name) or statement.brand_id}-{statement.month:%Y-%m}.csv"
