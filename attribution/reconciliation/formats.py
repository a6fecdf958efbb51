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
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from attribution.links import CLICK_ID_NAME
from attribution.models import Reconciliation
from attribution.parsing import (
    FieldError,
    parse_amount,
    parse_click_id,
    parse_currency,
    parse_optional_text,
    parse_order_id,
)
from attribution.platforms import shopify, woocommerce

Format = Reconciliation.Format

MAX_ROWS = 200_000
MAX_BYTES = 50 * 1024 * 1024

class BookError(Exception):
    """The file as a whole cannot be read: answered 400 (413 for a limit), and nothing is stored. `header`
    holds the file's column names when its header is what failed (the page offers them to map)."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status
        self.header: list[str] = []


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


@dataclass(frozen=True)
class Columns:
    """Where a format's fields are in this file's header (indexes; None when absent)."""

    order_id: int
    amount: int
    currency: int | None
    status: int | None = None
    code: int | None = None
    click_id: int | None = None
    ordered_at: int | None = None
    test: int | None = None
    # Shopify: the other order id column, the cancellation date, the note attributes and what was refunded.
    alt_order_id: int | None = None
    cancelled_at: int | None = None
    note_attributes: int | None = None
    refunded: int | None = None
    group_by: int | None = None  # Shopify: Name, which every line-item row of an order repeats
    order_id_name: str = ""
    amount_name: str = ""
    # Each field of FIELDS that is read, with the header it is read from; the fields the brand mapped.
    headers: dict = field(default_factory=dict)
    mapped: tuple[str, ...] = ()
    statuses: str = ""  # whose statuses the status column holds: a format's, or MAPPED (see _read_status)


# --- the header ------------------------------------------------------------------------------------

GENERIC_REQUIRED = ("order_id", "amount", "currency")
GENERIC_OPTIONAL = ("status", "code", "click_id", "ordered_at", "test")
# The fields a brand may map, named as the generic format's columns.
FIELDS = GENERIC_REQUIRED + GENERIC_OPTIONAL
MAP_PREFIX = "column_"  # an upload's column_<field>=<header> maps a field to a header of the file
MAX_HEADER_NAME = 255
WOO_ALIASES = {
    "order_id": ("order id", "order number", "order #", "order_id"),
    "amount": ("order total", "order total amount", "total"),
    "currency": ("order currency", "currency"),
    "code": ("coupon code", "coupon codes", "coupons", "coupon"),
    "status": ("order status", "status"),
    "ordered_at": ("order date", "date created", "date"),
}
MAPPED = "mapped"  # Columns.statuses of a read through a map: the generic and the WooCommerce statuses


def _key(name: str) -> str:
    return " ".join(name.strip().lower().split())


def check_map(column_map: dict[str, str]) -> None:
    """BookError for a map no file could satisfy: an unknown field, an overlong name, one column twice."""
    for name, header in column_map.items():
        if name not in FIELDS:
            raise BookError(
                f"{MAP_PREFIX}{name[:40]} is not a field of a book. Fix: map "
                + ", ".join(MAP_PREFIX + f for f in FIELDS)
                + "."
            )
        if len(header) > MAX_HEADER_NAME:
            raise BookError(f"{MAP_PREFIX}{name} is longer than {MAX_HEADER_NAME} characters.")
    seen: dict[str, str] = {}
    for name, header in column_map.items():
        if (other := seen.setdefault(_key(header), name)) != name:
            raise BookError(
                f"The column {header[:60]!r} is mapped to both {other} and {name}. Fix: map each column to one field."
            )


def columns_named(header: list[str]) -> list[str]:
    """The file's column names as a brand would pick them: stripped, the empty ones left out, each once."""
    names, seen = [], set()
    for name in header:
        if (cleaned := name.strip()) and _key(cleaned) not in seen:
            seen.add(_key(cleaned))
            names.append(cleaned[:MAX_HEADER_NAME])
    return names


def _listed(header: list[str], most: int = 30) -> str:
    names = columns_named(header)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _names(fmt: str, mapping: bool) -> dict[str, tuple[str, ...]]:
    """The header names each field is found by: the format's own; beside a map, the other format's too,
    since a file the brand maps is rarely named as ours (docs/decisions.md, "Reconciliation: a brand maps
    the columns")."""
    generic = {name: (name,) for name in FIELDS}
    if fmt == Format.GENERIC:
        return {f: generic[f] + WOO_ALIASES.get(f, ()) for f in FIELDS} if mapping else generic
    return {f: WOO_ALIASES.get(f, ()) + (generic[f] if mapping else ()) for f in FIELDS}


def suggest(header: list[str]) -> dict[str, str]:
    """For each field, the column of this header a map would read without being told: a starting point
    for a brand choosing its columns."""
    index = _index(header)
    found = _found(index, _names(Format.GENERIC, mapping=True), taken=set())
    return {name: header[i].strip() for name, i in found.items()}


def _index(header: list[str]) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        if name.strip():
            index.setdefault(_key(name), i)
    return index


def _found(index: dict[str, int], names: dict[str, tuple[str, ...]], taken: set[int]) -> dict[str, int]:
    """Each field at the first of its names the header has, leaving the columns already taken."""
    found = {}
    for name, aliases in names.items():
        i = next((index[a] for a in aliases if a in index and index[a] not in taken), None)
        if i is not None:
            found[name] = i
    return found


def _mapped(header: list[str], index: dict[str, int], column_map: dict[str, str]) -> dict[str, int]:
    """The mapped fields' columns; BookError naming a mapped header the file does not have."""
    mapped = {}
    for name, wanted in column_map.items():
        i = index.get(_key(wanted))
        if i is None:
            raise BookError(
                f"The header has no column {wanted[:60]!r} ({MAP_PREFIX}{name}). Fix: map a column the file "
                f"has: {_listed(header)}."
            )
        mapped[name] = i
    return mapped


def detect(
    header: list[str],
    *,
    order_id_column: str = "",
    amount_column: str = "",
    column_map: dict[str, str] | None = None,
) -> tuple[str, Columns]:
    """The format of a header and where its fields are; BookError naming the missing column. A mapped
    field is read from its header whatever the format would read."""
    column_map = column_map or {}
    index = _index(header)
    mapped = _mapped(header, index, column_map)
    if "name" in index and "financial status" in index:
        return Format.SHOPIFY, _shopify_columns(index, header, order_id_column, amount_column, mapped)
    if any(alias in index for alias in ("order id", "order number")) and "order_id" not in index:
        fmt = Format.WOOCOMMERCE
    else:
        fmt = Format.GENERIC
    found = {**_found(index, _names(fmt, bool(mapped)), taken=set(mapped.values())), **mapped}
    missing = [name for name in GENERIC_REQUIRED if name not in found]
    if fmt == Format.WOOCOMMERCE and missing:
        label = {"order_id": "Order ID", "amount": "Order Total", "currency": "Order Currency"}[missing[0]]
        raise BookError(
            f"The WooCommerce export has no {label} column. Fix: map the column that holds the "
            f"{missing[0].replace('_', ' ')}."
        )
    if missing:
        raise BookError(
            f"The header has no {' and no '.join(missing)} column. Fix: map the file's columns that hold "
            f"{'it' if len(missing) == 1 else 'them'}, name the columns order_id, amount and currency (optional: "
            "status, code, click_id, ordered_at, test), or upload Shopify's or a WooCommerce orders export as "
            "it comes."
        )
    return fmt, Columns(
        order_id=found["order_id"],
        amount=found["amount"],
        currency=found["currency"],
        **{name: found.get(name) for name in GENERIC_OPTIONAL},
        order_id_name=header[found["order_id"]].strip(),
        amount_name=header[found["amount"]].strip(),
        headers={name: header[i].strip() for name, i in found.items()},
        mapped=tuple(name for name in FIELDS if name in mapped),
        statuses=MAPPED if mapped else fmt,
    )


def _shopify_columns(
    index: dict[str, int], header: list[str], order_id_column: str, amount_column: str, mapped: dict[str, int]
) -> Columns:
    amount_name = {"": "subtotal", "subtotal": "subtotal", "total": "total"}.get(amount_column.lower())
    if amount_name is None:
        raise BookError("amount_column must be subtotal or total.")
    if amount_name not in index and "amount" not in mapped:
        raise BookError(f"The Shopify export has no {amount_name.title()} column.")
    if "currency" not in index and "currency" not in mapped:
        raise BookError("The Shopify export has no Currency column.")
    choice = order_id_column.lower()
    if choice not in ("", "id", "name"):
        raise BookError("order_id_column must be id or name for a Shopify export.")
    if choice == "id" and "id" not in index:
        raise BookError("The Shopify export has no Id column. Fix: export with every column, or use name.")
    # Without a choice, both are read and the matching keeps the one this brand's events use.
    first, other = ("name", "id") if choice == "name" or "id" not in index else ("id", "name")
    taken = set(mapped.values())

    def own(name: str) -> int | None:  # a Shopify column, unless the brand mapped it to another field
        i = index.get(name)
        return None if i is None or i in taken else i

    found = {
        "order_id": index[first],
        "amount": index.get(amount_name),
        "currency": index.get("currency"),
        "status": own("financial status"),
        "code": own("discount code"),
        "ordered_at": own("created at"),
        **mapped,
    }
    found = {name: i for name, i in found.items() if i is not None}
    # A mapped click replaces the note attributes' one; a mapped order id replaces the choice of Id or Name.
    notes = own("note attributes") if "click_id" not in mapped else None
    alt = index.get(other) if not choice and "order_id" not in mapped else None
    headers = {name: header[i].strip() for name, i in found.items()}
    if notes is not None:
        headers["click_id"] = header[notes].strip()
    return Columns(
        order_id=found["order_id"],
        alt_order_id=alt,
        amount=found["amount"],
        currency=found["currency"],
        status=found.get("status"),
        code=found.get("code"),
        click_id=found.get("click_id"),
        ordered_at=found.get("ordered_at"),
        test=found.get("test"),
        cancelled_at=own("cancelled at"),
        note_attributes=notes,
        refunded=own("refunded amount"),
        group_by=index["name"],
        order_id_name=header[found["order_id"]].strip() if "order_id" in mapped else first.title(),
        amount_name=header[found["amount"]].strip() if "amount" in mapped else amount_name.title(),
        headers=headers,
        mapped=tuple(name for name in FIELDS if name in mapped),
        statuses=MAPPED if "status" in mapped else Format.SHOPIFY,
    )


# --- the cells -------------------------------------------------------------------------------------

_PLAIN_DIGITS = re.compile(r"\d+(\.\d+)?")
_POINT_DECIMALS = re.compile(r"\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?")
_COMMA_DECIMALS = re.compile(r"\d{1,3}([. \u00a0]\d{3})+(,\d+)?|\d+(,\d+)?")


def read_amount(text: str, *, decimal_mark: str, allow_zero: bool = False) -> Decimal:
    """An amount in the file's number format; FieldError with the reason otherwise."""
    value = text.strip()
    if not value:
        raise FieldError("is empty")
    if _PLAIN_DIGITS.fullmatch(value):  # most cells: 59.90 reads the same in either format, so no grouping
        if decimal_mark == "." or "." not in value:
            return parse_amount(value, allow_zero=allow_zero)
    pattern = _POINT_DECIMALS if decimal_mark == "." else _COMMA_DECIMALS
    if not pattern.fullmatch(value):
        example = "1,234.50" if decimal_mark == "." else "1.234,50"
        raise FieldError(
            f"{value[:40]!r} does not read as a number of this file (such as {example}, without a currency symbol)"
        )
    if decimal_mark == ".":
        plain = value.replace(",", "")
    else:
        plain = re.sub(r"[. \u00a0]", "", value).replace(",", ".")
    return parse_amount(plain, allow_zero=allow_zero)


_SPACED_OFFSET = re.compile(r" ([+-]\d{2}:?\d{2})$")


def read_time(text: str) -> datetime | None:
    """ISO 8601, a date, or Shopify's `2026-11-24 10:15:00 -0500`; UTC when no offset is written."""
    value = text.strip()
    if not value:
        return None
    if " " in value and (value[-5:-4] in ("+", "-") or value[-6:-5] in ("+", "-")):
        value = _SPACED_OFFSET.sub(r"\1", value)  # Shopify's "2026-11-24 10:15:00 -0500"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise FieldError(f"{text[:40]!r} is not a date such as 2026-11-24 or 2026-11-24T10:15:00Z") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


_TRUE, _FALSE = {"true", "1", "yes", "y"}, {"false", "0", "no", "n", ""}


def read_flag(text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise FieldError(f"{text[:20]!r} is not true or false")


# The book's statuses by format: completed, or cancelled (cancelled and refunded orders earn nothing).
GENERIC_STATUSES = {"": False, "completed": False, "cancelled": True, "canceled": True, "refunded": True}
# Shopify's and WooCommerce's vocabularies are the platforms' own (attribution.platforms.shopify, woocommerce).
SHOPIFY_STATUSES = {"": False} | dict.fromkeys(shopify.PAID_FOR, False) | dict.fromkeys(shopify.NOT_PAID_FOR, True)
WOO_STATUSES = (
    {"": False}
    | dict.fromkeys(woocommerce.PAID | {woocommerce.ON_HOLD}, False)
    | dict.fromkeys(woocommerce.UNDONE | {woocommerce.FAILED} | woocommerce.UNPAID, True)
)


# A status column the brand mapped holds a vocabulary it did not say: the generic and the WooCommerce
# statuses together (they agree where they overlap; Shopify's `pending` is a completed order, WooCommerce's
# an unpaid one, so Shopify's stay its export's own).
STATUSES = {
    Format.GENERIC: GENERIC_STATUSES,
    Format.SHOPIFY: SHOPIFY_STATUSES,
    Format.WOOCOMMERCE: WOO_STATUSES,
    MAPPED: {**GENERIC_STATUSES, **WOO_STATUSES},
}


def _status(text: str, statuses: dict[str, bool]) -> bool:
    value = text.strip().lower().replace(" ", "_" if statuses is SHOPIFY_STATUSES else "-")
    value = value.removeprefix("wc-")
    if value not in statuses:
        known = ", ".join(sorted(s for s in statuses if s))
        raise FieldError(f"{text[:30]!r} is not a status of this format ({known})")
    return statuses[value]


def _first_code(text: str) -> str:
    """The first of the codes a cell lists (Shopify and WooCommerce join several with commas)."""
    first = text.replace(";", ",").split(",")[0] if text else ""
    return parse_optional_text(first) or ""


def _click_of_notes(text: str) -> str:
    """The click id among Shopify's note attributes (`name: value` lines)."""
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == CLICK_ID_NAME:  # the note attribute sms-click.js writes on a Shopify storefront
            return value.strip()
    return ""


# --- the file --------------------------------------------------------------------------------------


@dataclass
class Book:
    format: str
    columns: Columns
    decimal_mark: str
    reader: Iterator[list[str]]
    _csv: object = field(repr=False, default=None)
    rows: int = 0  # data rows read so far
    _readers: list = field(repr=False, default_factory=list)
    _currencies: dict = field(repr=False, default_factory=dict)

    def __post_init__(self):
        # The optional fields this file has, each with its reader, worked out once for all its rows.
        readers = {
            "status": self._read_status,
            "code": _first_code,
            "ordered_at": read_time,
            "test": read_flag,
            "click_id": lambda text: parse_click_id(text) or "",
            "note_attributes": lambda text: parse_click_id(_click_of_notes(text)) or "",
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
                if not any(cell.strip() for cell in row):
                    continue  # a blank line is no order
                self.rows += 1
                if self.rows > MAX_ROWS:
                    raise BookError(
                        f"The file has more than {MAX_ROWS:,} rows. Fix: upload it in parts, a month at a time.",
                        status=413,
                    )
                group_by = self.columns.group_by
                if group_by is not None and current is not None and _cell(row, group_by) == current.group:
                    current.rows += 1  # a further line item of the same order
                    continue
                if current is not None:
                    yield current
                current = self._order(row, start)
        except csv.Error as exc:
            raise BookError(f"Line {line + 1} cannot be read as CSV: {exc}.") from None
        if current is not None:
            yield current

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
        return _status(text, STATUSES[self.columns.statuses])


def _cell(row: list[str], index: int | None) -> str:
    return row[index] if index is not None and index < len(row) else ""


def _text_lines(binary) -> Iterator[str]:
    """The file's lines as text, decoded one at a time so that a line that is not UTF-8 is named (a
    decoder reading ahead in blocks could not say which); the byte order mark of the first is dropped."""
    for number, raw in enumerate(binary, start=1):
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise BookError(
                f"Line {number} is not UTF-8 text. Fix: save the file as CSV UTF-8 (with or without a BOM)."
            ) from None


def open_book(
    binary, *, order_id_column: str = "", amount_column: str = "", column_map: dict[str, str] | None = None
) -> Book:
    """Read the header of a binary file and tell its format; BookError when it cannot be a book (with the
    file's column names when the header is what failed)."""
    text = _text_lines(binary)
    first = next(text, "")
    if not first.strip():
        raise BookError("The file is empty. Fix: upload a CSV file whose first line names the columns.")
    delimiter = ";" if first.count(";") > first.count(",") else ","
    try:
        header = next(csv.reader([first], delimiter=delimiter))
    except csv.Error as exc:
        raise BookError(f"Line 1 cannot be read as CSV: {exc}.") from None
    try:
        fmt, columns = detect(
            header, order_id_column=order_id_column, amount_column=amount_column, column_map=column_map
        )
    except BookError as exc:
        exc.header = columns_named(header)
        raise
    reader = csv.reader(text, delimiter=delimiter)
    return Book(fmt, columns, "." if delimiter == "," else ",", reader, reader)
