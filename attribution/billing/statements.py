"""A statement's figures as the statement pages and the admin read them: its lines per creator and
currency, its totals per currency, and the commissions and adjustments behind them.

Statement figures are read from their commissions and adjustments, never stored twice. Amounts are
Decimal and per currency: amounts of different currencies are never added up as they are, only each
converted at its commission's locked rate into the brand's reporting currency (attribution.billing.reporting).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from ..models import Adjustment, Commission, Statement
from ..money import in_minor_units
from .reporting import in_reporting

State = Commission.State


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
    # In the brand's reporting currency (attribution.billing.reporting): None when nothing of the line was
    # converted into it.
    reporting: Decimal | None = None


@dataclass
class Summary:
    statement: Statement
    lines: list[Line]  # one per creator and currency, by creator name
    totals: list[Figures]  # one per currency, by currency code
    reporting: object = None  # attribution.billing.reporting.InReporting, set by summarize


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
    reported = in_reporting(
        statement, statement.brand.reporting_currency_now(), billed=billed_commissions(statement)
    )
    for key, amount in reported.lines.items():
        if key in lines:
            lines[key].reporting = amount
    return Summary(
        statement,
        sorted(lines.values(), key=lambda x: (x.creator.lower(), x.creator_id, x.currency)),
        _totals(lines.values()),
        reported,
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
