"""Which export a CSV order book is, and its orders, read one at a time (the file is never held whole).

Three formats, told apart by the header (docs/reconciliation.md):
- generic: order_id, amount, currency; optional status, code, click_id, ordered_at, test;
- Shopify's orders export: one row per line item, the order's figures on its first row;
- a WooCommerce orders export (from an extension: columns by their common names).
A brand may map any field to a header of its file (the upload's column_<field> options): the map wins
over the names the format would read, and the fields it leaves are found by name as before.

UTF-8 with or without a byte order mark; `,` or `;` between cells. Amounts are read by the file's number
format: a `,`-separated file writes 1,234.50 (a point before the decimals, commas between thousands), a
`;`-separated one 1.234,50; an amount in the other format, or with a currency symbol, is refused for its
row with the reason. Every row that cannot be read becomes an invalid book order, never a failed upload.
"""

import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from attribution.orders.lines import (
    MAX_LINES,
    NO_LINES,
    ZERO,
    LineProblem,
    OrderLine,
    OrderLines,
    line_quantity,
    line_text,
)
from attribution.outcomes import say
from attribution.parsing import FieldError, parse_click_id, parse_currency, parse_order_id

from .cells import click_of_notes, first_code, read_amount, read_flag, read_time
from .columns import Columns, columns_named, detect
from .errors import BookError
from .statuses import read_status
from .taxes import with_taxes

MAX_ROWS = 200_000
# A line (its end included) and a row at most: a real export's order fits in a few KB and a few hundred
# columns, while a crafted one (a 20 MB line of commas, a header of distinct names) took memory out of all
# proportion to its size before it could be refused (docs/reconciliation.md, "Limits and bad input").
MAX_LINE_BYTES = 1024 * 1024
# A row's lines together at most: quoted cells may hold line breaks, so a row of "\n" cells spans lines of a few
# bytes each, and the CSV reader builds the whole row before its columns can be counted (a 20 MB body of them
# took about 45 MB). Capped as it streams, it costs what a line may.
MAX_ROW_BYTES = MAX_LINE_BYTES
MAX_COLUMNS = 500
MAX_BYTES = 50 * 1024 * 1024


@dataclass
class BookOrder:
    """One order of the book, as its row(s) said it; `problem` says why it could not be read."""

    line: int
    order_id: str = ""
    alt_order_id: str = ""  # Shopify: the order's name (#1001) beside its numeric id
    amount: Decimal | None = None
    currency: str = ""
    cancelled: bool = False
    code: str = ""
    click_id: str = ""
    ordered_at: datetime | None = None
    is_test: bool = False
    problem: str = ""
    rows: int = 1  # the file's data rows this order took (Shopify: one per line item)
    group: str = field(default="", repr=False)  # Shopify: the Name its further line-item rows repeat
    lines: OrderLines = NO_LINES  # Shopify: its line items, one a row (issue 56)
    line_items: list = field(default_factory=list, repr=False)  # read so far
    lines_problem: str = field(default="", repr=False)  # why its line items cannot be read
    figures: tuple = field(
        default=(None, None, None, None), repr=False
    )  # Shopify: Subtotal, Shipping, Taxes, Total


@dataclass
class Book:
    format: str
    columns: Columns
    decimal_mark: str
    reader: Iterator[list[str]]
    _csv: object = field(repr=False, default=None)
    _lines: "_Lines" = field(repr=False, default=None)
    rows: int = 0  # data rows read so far
    _readers: list = field(repr=False, default_factory=list)
    _currencies: dict = field(repr=False, default_factory=dict)

    def __post_init__(self):
        # The optional fields this file has, each with its reader, worked out once for all its rows.
        readers = {
            "status": self._read_status,
            "code": first_code,
            "ordered_at": read_time,
            "test": read_flag,
            "click_id": lambda text: parse_click_id(text) or "",
            "note_attributes": lambda text: parse_click_id(click_of_notes(text)) or "",
            "cancelled_at": lambda text: bool(text.strip()),
        }
        self._readers = [
            (name, getattr(self.columns, name), read)
            for name, read in readers.items()
            if getattr(self.columns, name) is not None
        ]

    def _currency(self, text: str) -> str:
        """parse_currency, once per distinct cell (a book holds a handful of currencies)."""
        known = self._currencies.get(text)
        if known is None:
            known = self._currencies[text] = parse_currency(text)
        return known

    def orders(self) -> Iterator[BookOrder]:
        """The book's orders in file order; BookError past MAX_ROWS, or at a line that is not UTF-8."""
        current: BookOrder | None = None
        line = 1
        try:
            for row in self.reader:
                start, line = line + 1, self._csv.line_num + 1  # the header is line 1
                if self._lines is not None:
                    self._lines.row_read()
                if len(row) > MAX_COLUMNS:
                    raise too_wide(start, len(row))
                if not any(cell.strip() for cell in row):
                    continue  # a blank line is no order
                self.rows += 1
                if self.rows > MAX_ROWS:
                    raise BookError(say("book.too_many_rows", rows=MAX_ROWS), status=413)
                group_by = self.columns.group_by
                if group_by is not None and current is not None and _cell(row, group_by) == current.group:
                    current.rows += 1  # a further line item of the same order
                    self._line_item(current, row, start)
                    continue
                if current is not None:
                    yield _with_lines(current, self.columns)
                current = self._order(row, start)
                self._line_item(current, row, start)
        except csv.Error as exc:
            raise BookError(say("book.not_csv", line=line + 1, problem=exc)) from None
        if current is not None:
            yield _with_lines(current, self.columns)

    def _line_item(self, order: BookOrder, row: list[str], line: int) -> None:
        """Shopify: the row's line item (its price a unit's, its discount the line's), in the file's number
        format; one that cannot be read leaves the order without lines, and says why."""
        if self.columns.line_items is None or order.lines_problem:
            return
        quantity, price, sku, discount = self.columns.line_items
        where = f"line {line}: Lineitem"
        try:
            if len(order.line_items) >= MAX_LINES:
                raise LineProblem(f"{where} is past the {MAX_LINES} lines an order may have")
            count = line_quantity(_cell(row, quantity).strip(), f"{where} quantity")
            unit = _amount_of_line(_cell(row, price), self.decimal_mark, f"{where} price")
            off = _cell(row, discount)
            taken = _amount_of_line(off, self.decimal_mark, f"{where} discount") if off.strip() else ZERO
            order.line_items.append(
                OrderLine(
                    gross=unit * count,
                    quantity=count,
                    discount=taken,
                    sku=line_text(_cell(row, sku), "sku")[:255],
                )
            )
        except LineProblem as problem:
            order.lines_problem = str(problem)

    def _figure(self, row: list[str], index: int) -> Decimal | None:
        try:
            return read_amount(_cell(row, index), decimal_mark=self.decimal_mark, allow_zero=True)
        except FieldError:
            return None

    def _order(self, row: list[str], line: int) -> BookOrder:
        c = self.columns
        order = BookOrder(line=line)
        if c.group_by is not None:
            order.group = _cell(row, c.group_by)
        if any("\x00" in cell for cell in row):
            order.problem = "A cell holds the character U+0000, which no database can store."
            return order
        first, alt = _cell(row, c.order_id), ""
        if c.alt_order_id is not None:
            alt = _cell(row, c.alt_order_id).strip()
            if not first.strip():  # Shopify without a choice: an order without an Id goes by its Name
                first, alt = alt, ""
            order.alt_order_id = alt if 0 < len(alt) <= 255 else ""
        try:
            order.order_id = parse_order_id(first)
        except FieldError as exc:
            order.problem = f"{c.order_id_name} {exc}"
            return order
        problems = []
        try:
            order.amount = read_amount(_cell(row, c.amount), decimal_mark=self.decimal_mark)
        except FieldError as exc:
            problems.append(f"{c.amount_name} {exc}")
        if c.order_figures is not None:
            order.figures = tuple(self._figure(row, i) for i in c.order_figures)
        try:
            order.currency = self._currency(_cell(row, c.currency))
        except FieldError as exc:
            problems.append(f"currency {exc}")
        for name, index, read in self._readers:
            try:
                value = read(row[index] if index < len(row) else "")
            except FieldError as exc:
                problems.append(f"{name} {exc}")
                continue
            if name in ("status", "cancelled_at"):
                order.cancelled = order.cancelled or value
            elif name == "note_attributes":
                order.click_id = value
            elif name == "test":
                order.is_test = value
            else:
                setattr(order, name, value)
        if c.refunded is not None and order.amount is not None and not order.cancelled:
            self._net_of_refunds(order, _cell(row, c.refunded), problems)
        order.problem = "; ".join(problems)
        return order

    def _net_of_refunds(self, order: BookOrder, text: str, problems: list[str]) -> None:
        """Shopify: a partly refunded order earns on what was kept, its amount less the Refunded Amount
        (docs/decisions.md, "Reconciliation: what a Shopify refund leaves"); refunded whole, it is cancelled."""
        if not text.strip():
            return
        try:
            refunded = read_amount(text, decimal_mark=self.decimal_mark, allow_zero=True)
        except FieldError as exc:
            problems.append(f"Refunded Amount {exc}")
            return
        if refunded >= order.amount:
            order.cancelled = True
        elif refunded:
            order.amount -= refunded

    def _read_status(self, text: str) -> bool:
        return read_status(text, self.columns.statuses)


def _amount_of_line(text: str, decimal_mark: str, where: str):
    try:
        return read_amount(text, decimal_mark=decimal_mark, allow_zero=True)
    except FieldError as exc:
        raise LineProblem(f"{where} {exc}") from None


def _with_lines(order: BookOrder, columns: Columns) -> BookOrder:
    """The order's lines, when they can be trusted: a Shopify export's line items add up to its Subtotal (each
    line's price times quantity, less the line's discount). Rows cut from the file, or edited, would price only
    part of the order: its lines are then ignored, saying why, and the order is priced on its amount."""
    if not order.lines_problem and order.line_items and order.amount is not None:
        if columns.amount_name.lower() == "subtotal":
            added = sum((line.gross - line.discount for line in order.line_items), ZERO)
            if abs(added - order.amount) > Decimal("0.01") * len(order.line_items):
                order.lines_problem = f"its line items add up to {added}, not its Subtotal {order.amount}"
    if order.lines_problem:
        order.lines = OrderLines(ignored=order.lines_problem)
    elif order.line_items:
        order.lines = with_taxes(tuple(order.line_items), order.figures)
    return order


def _cell(row: list[str], index: int | None) -> str:
    return row[index] if index is not None and index < len(row) else ""


def too_wide(line: int, columns: int) -> BookError:
    return BookError(say("book.too_wide", line=line, columns=columns, most=MAX_COLUMNS))


def too_large() -> BookError:
    """A file over MAX_BYTES (413), as the API and the page both refuse it."""
    return BookError(say("book.too_large", mb=MAX_BYTES // (1024 * 1024)), status=413)


class _Lines:
    """The file's lines as text, decoded one at a time so that a line that is not UTF-8 is named (a decoder
    reading ahead in blocks could not say which); the byte order mark of the first is dropped. A line is read at
    most MAX_LINE_BYTES and one byte more, and the lines of one row at most MAX_ROW_BYTES together (the reader
    calls `row_read` after each row), so a longer one is refused having cost that."""

    def __init__(self, binary):
        self.binary, self.number, self.row_bytes, self.row_start = binary, 0, 0, 1

    def __iter__(self):
        return self

    def row_read(self) -> None:
        self.row_bytes, self.row_start = 0, self.number + 1

    def __next__(self) -> str:
        raw = self.binary.readline(MAX_LINE_BYTES + 1)
        if not raw:
            raise StopIteration
        self.number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise BookError(say("book.line_too_long", line=self.number))
        self.row_bytes += len(raw)
        if self.row_bytes > MAX_ROW_BYTES:
            raise BookError(say("book.row_too_long", line=self.row_start))
        try:
            return raw.decode("utf-8-sig" if self.number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise BookError(say("book.not_utf8", line=self.number)) from None


def open_book(
    binary, *, order_id_column: str = "", amount_column: str = "", column_map: dict[str, str] | None = None
) -> Book:
    """Read the header of a binary file and tell its format; BookError when it cannot be a book (with the
    file's column names when the header is what failed)."""
    text = _Lines(binary)
    first = next(text, "")
    if not first.strip():
        raise BookError(say("book.empty"))
    delimiter = ";" if first.count(";") > first.count(",") else ","
    try:
        header = next(csv.reader([first], delimiter=delimiter))
    except csv.Error as exc:
        raise BookError(say("book.not_csv", line=1, problem=exc)) from None
    if len(header) > MAX_COLUMNS:
        raise too_wide(1, len(header))
    try:
        fmt, columns = detect(
            header, order_id_column=order_id_column, amount_column=amount_column, column_map=column_map
        )
    except BookError as exc:
        exc.header = columns_named(header)
        raise
    text.row_read()  # the header is a row of its own
    reader = csv.reader(text, delimiter=delimiter)
    return Book(fmt, columns, "." if delimiter == "," else ",", reader, reader, text)
