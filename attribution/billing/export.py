"""A statement as a CSV file: every commission and adjustment behind it, one row each, streamed."""

from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from decimal import Decimal

from django.utils.text import slugify

from config.lib.csvfiles import safe_cell, stream

from ..fx.arithmetic import at_rate
from ..models import Adjustment, Commission, Statement
from ..money import in_minor_units
from ..plans.shown import rule_names
from .statements import statement_adjustments, statement_commissions

CSV_HEADER = [
    "statement_month",
    "kind",
    "order_id",
    "creator",
    "currency",
    "amount",
    # issue 56: the plan version that priced the commission and the rules that took its lines, "; "-joined
    # (docs/plans.md): a spreadsheet groups the statement by rule with them.
    "plan_version",
    "rules",
    # The row in the brand's reporting currency, at its commission's locked rate (docs/currencies.md): empty,
    # with the reason, when it had no rate.
    "reporting_currency",
    "reporting_amount",
    "fx_rate",
    "fx_rate_date",
    "fx_source",
    "fx_reason",
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

    Totals are not rows: a spreadsheet sums `amount` per currency, never across currencies, and
    `reporting_amount` (each row at its commission's locked rate) for the statement's total. Text a
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
    converted = bool(commission.fx_rate)
    return [
        month,
        "adjustment" if adjustment is not None else "commission",
        safe_cell(commission.order.order_id),
        safe_cell(commission.creator.name),
        commission.currency,
        amount,
        commission.plan_version,
        safe_cell("; ".join(rule_names(commission))),
        commission.reporting_currency,
        at_rate(amount, Decimal(commission.fx_rate), commission.reporting_currency) if converted else "",
        commission.fx_rate,
        commission.fx_rate_date.isoformat() if commission.fx_rate_date else "",
        commission.fx_source,
        safe_cell(commission.fx_reason),
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
