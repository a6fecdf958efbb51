"""A statement's figures as the statement pages and the admin read them: its lines per creator and
currency, its totals per currency and in its brand's reporting currency, and the commissions and adjustments
behind them; the totals of several statements (the lists) the same way.

Statement figures are read from their commissions and adjustments, never stored twice. Amounts are
Decimal and per currency: amounts of different currencies are never added up as they are, only each
converted at its commission's locked rate into the brand's reporting currency (attribution.billing.reporting).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import Coalesce

from ..models import Adjustment, Commission, Statement
from ..money import in_minor_units
from .reporting import InReporting, in_reporting


def billed_commissions(*statements: Statement) -> QuerySet:
    """The commissions the statements bill, each with `billed`: its amount, or the amount paid once paid.

    Locked ones (open statement) and paid ones (paid statement), including those cancelled after
    payment (their clawback is an adjustment elsewhere); a commission cancelled before payment is not billed.
    """
    return (
        Commission.objects.filter(statement__in=statements)
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
    reporting: InReporting  # in the brand's reporting currency, lines per creator and currency


def summarize(statement: Statement) -> Summary:
    """A statement's lines per creator and currency, its totals per currency (two grouped queries) and in
    its brand's reporting currency (attribution.billing.reporting.in_reporting)."""
    lines: dict[tuple[int, str], Line] = {}

    def line(creator_id, creator, currency) -> Line:
        key = (creator_id, currency)
        if key not in lines:
            lines[key] = Line(currency=currency, creator_id=creator_id, creator=creator)
        return lines[key]

    adjustments = Adjustment.objects.filter(statement=statement)
    _count(
        line,
        billed=billed_commissions(statement),
        adjustments=adjustments,
        keys=["creator_id", "creator__name"],
        adjustment_keys=["commission__creator_id", "commission__creator__name"],
    )
    reported = in_reporting(
        {statement.pk: statement.brand.reporting_currency_now()},
        billed=billed_commissions(statement),
        adjustments=adjustments,
        per_creator=True,
    )[statement.pk]
    for key, amount in reported.lines.items():
        if key in lines:
            lines[key].reporting = amount
    return Summary(
        statement,
        sorted(lines.values(), key=lambda x: (x.creator.lower(), x.creator_id, x.currency)),
        _totals(lines.values()),
        reported,
    )


def _count(figures_of, *, billed, adjustments, keys: list[str], adjustment_keys: list[str]) -> None:
    """Counts and amounts of the `billed` commissions and the `adjustments`, grouped by their `keys` and
    `adjustment_keys` and the currency, into the Figures `figures_of(*keys' values, currency)` (two grouped
    queries)."""
    for row in billed.values(*keys, "currency").annotate(count=Count("id"), total=Sum("billed")).order_by():
        found = figures_of(*(row[key] for key in keys), row["currency"])
        found.commissions = row["count"]
        found.commission_total = in_minor_units(row["total"], row["currency"])
    for row in (
        adjustments.values(*adjustment_keys, "currency")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    ):
        found = figures_of(*(row[key] for key in adjustment_keys), row["currency"])
        found.adjustments = row["count"]
        found.adjustment_total = in_minor_units(row["total"], row["currency"])


def _totals(lines: Iterable[Figures]) -> list[Figures]:
    by_currency: dict[str, Figures] = {}
    for line in lines:
        total = by_currency.setdefault(line.currency, Figures(currency=line.currency))
        total.commissions += line.commissions
        total.commission_total += line.commission_total
        total.adjustments += line.adjustments
        total.adjustment_total += line.adjustment_total
    return [by_currency[currency] for currency in sorted(by_currency)]


@dataclass
class Totals:
    """A statement's totals on a list: per currency as billed, and in its brand's reporting currency."""

    figures: list[Figures]  # one per currency, by currency code
    reporting: InReporting  # lines per currency

    @property
    def commissions(self) -> int:
        return sum(f.commissions for f in self.figures)

    @property
    def adjustments(self) -> int:
        return sum(f.adjustments for f in self.figures)


def totals_of(statements: list[Statement], currencies: dict[int, str]) -> dict[int, Totals]:
    """The totals of several statements, by statement id, as each one's own page has them: per currency (two
    grouped queries) and in the reporting currency `currencies` names for its brand, by brand id (three
    queries: attribution.billing.reporting.in_reporting)."""
    figures: dict[tuple[int, str], Figures] = {}

    def of(statement_id, currency) -> Figures:
        return figures.setdefault((statement_id, currency), Figures(currency=currency))

    adjustments = Adjustment.objects.filter(statement__in=statements)
    _count(
        of,
        billed=billed_commissions(*statements),
        adjustments=adjustments,
        keys=["statement_id"],
        adjustment_keys=["statement_id"],
    )
    reporting = in_reporting(
        {statement.pk: currencies[statement.brand_id] for statement in statements},
        billed=billed_commissions(*statements),
        adjustments=adjustments,
        per_creator=False,
    )
    result = {statement.pk: Totals([], reporting[statement.pk]) for statement in statements}
    for (statement_id, _), found in sorted(figures.items()):
        result[statement_id].figures.append(found)
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
