"""What the Creators page and its CSV show of a CreatorTable: the columns (each money figure in the brand's
reporting currency, and once per currency as paid), their sort and the CSV lines. No database here."""

from collections.abc import Iterator
from dataclasses import dataclass

from attribution.money import in_minor_units, money
from config.lib.csvfiles import safe_cell, stream
from health.pages.creators.forms import LocalPeriod
from health.pages.creators.list_queries import CreatorRow, CreatorTable

# The money figures, each shown once per currency.
MONEY = [
    ("revenue", "Revenue"),
    ("average", "Avg order"),
    ("earned", "Earned"),
    ("pending", "Pending"),
    ("held", "Held"),
    ("paid", "Paid"),
]
# The other figures in the page's order: key, heading.
COUNTS = [
    ("clicks", "Clicks"),
    ("orders", "Orders"),
    ("conversion", "Click conversion"),
]
SHARES = [
    ("refund_rate", "Cancelled / refunded"),
    ("by_click", "By click"),
    ("by_code", "By code"),
    ("by_shopper", "By shopper"),
    ("code_only_share", "Code only"),
    ("new", "New shoppers"),
    ("returning", "Returning shoppers"),
]
DEFAULT_SORT = "orders"


@dataclass(frozen=True)
class Column:
    key: str  # the sort key: "orders", "revenue:EUR", "revenue@USD" (converted into the reporting currency)
    heading: str
    currency: str = ""

    @property
    def label(self) -> str:
        """The cell's name on a phone, where the headings are hidden: "Revenue EUR"."""
        return f"{self.heading} {self.currency}".strip()


def count_columns() -> list[Column]:
    """The first table's: clicks, orders and the shares, whatever the currency."""
    return [Column(key, heading) for key, heading in [*COUNTS, *SHARES]]


def money_columns(currencies: list[str]) -> list[Column]:
    """The second table's: each money figure once per currency, never converted."""
    return [Column(f"{key}:{c}", heading, c) for c in currencies for key, heading in MONEY]


def reporting_columns(currency: str) -> list[Column]:
    """The second table's by default: each money figure in the brand's reporting currency (docs/currencies.md)."""
    return [Column(f"{key}@{currency}", heading, currency) for key, heading in MONEY] if currency else []


def columns(currencies: list[str], reporting: str = "") -> list[Column]:
    return [*count_columns(), *reporting_columns(reporting), *money_columns(currencies)]


def value(row: CreatorRow, key: str):
    """The figure `key` of `row`: a number, or None where it has no value (no clicks, no orders)."""
    if "@" in key:
        name = key.partition("@")[0]
        return row.reporting.average if name == "average" else getattr(row.reporting, name)
    name, _, currency = key.partition(":")
    if currency:
        figures = row.money_in(currency)
        return figures.average if name == "average" else getattr(figures, name)
    if name == "clicks":
        return row.clicks
    if name == "conversion":
        return row.conversion
    if name == "orders":
        return row.counts.orders
    if name in ("refund_rate", "code_only_share", "new", "returning"):
        return getattr(row.counts, name)
    return row.counts.share(name)


def sort_rows(table: CreatorTable, key: str, descending: bool) -> list[CreatorRow]:
    """The rows by `key` (a column's key or "name"); rows without a value last, whichever the direction."""
    if key == "name":
        return sorted(table.rows, key=lambda r: r.name.lower(), reverse=descending)
    present = [r for r in table.rows if value(r, key) is not None]
    absent = [r for r in table.rows if value(r, key) is None]
    present.sort(key=lambda r: r.name.lower())
    present.sort(key=lambda r: value(r, key), reverse=descending)  # stable: ties stay by name
    return present + absent


def sort_key(asked: str | None, table: CreatorTable) -> str:
    """The asked sort when the page has that column (or "name"), else the default."""
    known = {c.key for c in columns(table.currencies, table.reporting_currency)} | {"name"}
    return asked if asked in known else DEFAULT_SORT


# --- CSV: one line per creator and a totals line; money in one column per figure and currency ------------

CSV_COUNTS = [
    "clicks",
    "orders",
    "conversion_percent",
    "refund_counted_orders",
    "cancelled_or_refunded",
    "refund_rate_percent",
    "brand_refund_rate_percent",
    "by_click",
    "by_code",
    "by_shopper",
    "with_code",
    "code_only",
    "code_only_share_percent",
    "new_shoppers",
    "returning_shoppers",
]


def _percent(share: float | None) -> str:
    return "" if share is None else f"{share:.1f}"


def _amount(value, currency: str) -> str:
    return "" if value is None else money(value, currency)


def _csv_line(row: CreatorRow, table: CreatorTable, period: LocalPeriod, namespace: str) -> list:
    c = row.counts
    cells = [
        "" if row.creator_id is None else row.creator_id,
        row.name,
        period.first_day.isoformat(),
        period.last_day.isoformat(),
        str(period.zone),
        namespace,
        "" if row.clicks is None else row.clicks,
        c.orders,
        _percent(row.conversion),
        c.judged,
        c.cancelled,
        _percent(c.refund_rate),
        _percent(table.totals.counts.refund_rate),
        c.by_click,
        c.by_code,
        c.by_shopper,
        c.with_code,
        c.code_only,
        _percent(c.code_only_share),
        c.new,
        c.returning,
    ]
    # In the reporting currency (docs/currencies.md), then what was not converted into it, per currency.
    reporting = table.reporting_currency
    figures = row.reporting
    cells += [
        _amount(figures.revenue, reporting),
        _amount(figures.average, reporting),
        _amount(figures.earned, reporting),
        _amount(figures.pending, reporting),
        _amount(figures.held, reporting),
        _amount(figures.paid, reporting),
        " ".join(f"{currency}:{n}" for currency, n in sorted(row.apart.items())),
    ]
    for currency in table.currencies:
        figures = row.money_in(currency)
        cells += [
            _amount(figures.revenue, currency),
            _amount(figures.average, currency),
            _amount(figures.earned, currency),
            _amount(figures.pending, currency),
            _amount(figures.held, currency),
            _amount(figures.paid, currency),
        ]
    return [safe_cell(cell) for cell in cells]


def csv_lines(table: CreatorTable, period: LocalPeriod, *, namespace: str) -> Iterator[str]:
    header = [
        "creator_id",
        "creator",
        "first_day",
        "last_day",
        "time_zone",
        "namespace",
        *CSV_COUNTS,
        *(f"{key}_in_{table.reporting_currency}" for key, _ in MONEY),
        "not_converted_commissions",
        *(f"{key}_{c}" for c in table.currencies for key, _ in MONEY),
    ]
    lines = (_csv_line(row, table, period, namespace) for row in [*table.rows, table.totals])
    return stream(header, lines)


PERCENT_KEYS = {"conversion", "refund_rate", "code_only_share", "by_click", "by_code", "by_shopper"}


def shown(figure, column: Column) -> str:
    """A figure as the page writes it: counts grouped, shares as percentages, money in its currency's minor
    units; "–" where there is none."""
    if figure is None:
        return "–"
    if column.currency:
        return f"{in_minor_units(figure, column.currency):,}"
    if column.key in PERCENT_KEYS:
        return f"{figure:.1f}%"
    return f"{figure:,}"


def sort_choices(currencies: list[str], reporting: str = "") -> list[tuple[str, str]]:
    """(key, label) of every sort the page offers, for its "Sort by" menu."""
    return [
        ("name", "Creator"),
        *(
            (c.key, f"{c.heading} {c.currency}{' (converted)' if '@' in c.key else ''}".strip())
            for c in columns(currencies, reporting)
        ),
    ]


def headers(columns_: list[Column], sort: str, descending: bool) -> list[dict]:
    """Each column with the direction its link sorts by and its aria-sort."""
    out = []
    for column in [Column("name", "Creator"), *columns_]:
        active = column.key == sort
        first = "asc" if column.key == "name" else "desc"
        again = "asc" if descending else "desc"
        out.append(
            {
                "column": column,
                "dir": again if active else first,
                "aria": ("descending" if descending else "ascending") if active else "none",
            }
        )
    return out
