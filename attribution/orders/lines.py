"""An order's lines, as every way in reads them (issue 54's one typed order carries them; issue 56's
commission plans price them line by line). No database here.

Each way in fills them once:
- an order confirmation's optional `items` (each line's `amount` is its total after discounts, before tax);
- a Shopify order's `line_items` (price x quantity, less its `discount_allocations`; its tax lines);
- a WooCommerce order's `line_items` (`subtotal` before discounts, `total` after, `total_tax`);
- an order book's `Lineitem ...` columns.

An order that names no lines has none here: the plan prices it as one line of its whole base.
"""

import json
from decimal import Decimal
from typing import NamedTuple

from ..parsing import MAX_LINE_COLLECTIONS as MAX_COLLECTIONS
from ..parsing import MAX_LINE_QUANTITY as MAX_QUANTITY
from ..parsing import MAX_LINE_TEXT as MAX_TEXT
from ..parsing import MAX_LINES, FieldError, parse_amount

ZERO = Decimal(0)


class OrderLine(NamedTuple):
    """One line of an order, in the order's currency. `gross` is the line's price times its quantity before
    any discount; `discount` what the shop's discounts took off the line; `tax` the line's tax (inside `gross`
    when the shop's prices include tax, on top of it otherwise).

    A named tuple, as OrderLines: as immutable as a frozen dataclass, and made in a fifth of its time (a
    platform's delivery reads each of its lines; `_replace` makes a changed copy)."""

    gross: Decimal
    quantity: int = 1
    discount: Decimal = ZERO
    tax: Decimal = ZERO
    sku: str = ""
    product_id: str = ""
    variant_id: str = ""
    vendor: str = ""
    collections: tuple[str, ...] = ()  # Shopify collection handles, WooCommerce category slugs, or as sent


class OrderLines(NamedTuple):
    """An order's lines and what lies beside them: shipping (and its tax), whether the shop's prices include
    tax, and, when lines were sent but could not be read, why they were ignored (the order is then judged on
    its amount alone)."""

    lines: tuple[OrderLine, ...] = ()
    shipping: Decimal = ZERO
    shipping_tax: Decimal = ZERO
    taxes_included: bool = False
    ignored: str = ""  # why the sent lines were ignored ("items[2].amount is not a number"), or ""

    @property
    def named(self) -> bool:
        return bool(self.lines)


NO_LINES = OrderLines()


# Reading lines, for every way in: each value by the rule the order's own amount follows (a plain decimal
# number, never "1e6": issue 55, finding 10); a value that breaks it names its place in the problem.


class LineProblem(ValueError):
    """Why the sent lines cannot be read: "items[2].amount must be a number". The order keeps its amount."""


def line_amount(value, where: str) -> Decimal:
    """An amount of a line (0 allowed) as the order amount's rule reads it; a JSON number read as a float by
    a platform's parser counts by its shortest spelling."""
    if isinstance(value, float):
        value = Decimal(repr(value))
    try:
        return parse_amount(value, allow_zero=True)
    except FieldError as exc:
        raise LineProblem(f"{where} {'is missing' if value is None else exc}") from None


def line_quantity(value, where: str) -> int:
    """A line's quantity: a whole number from 1, as a number or its digits."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_QUANTITY:
        raise LineProblem(f"{where} must be a whole number from 1 to {MAX_QUANTITY}")
    return value


def line_text(value, where: str) -> str:
    """A sku, an id or a name: a string or a whole number (read as its digits), trimmed; none is ""."""
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise LineProblem(f"{where} must be a string of at most {MAX_TEXT} characters")
    return value.strip()


def line_collections(value, where: str) -> tuple[str, ...]:
    """A line's collections as sent: a list of names."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_COLLECTIONS:
        raise LineProblem(f"{where} must be a list of at most {MAX_COLLECTIONS} names")
    return tuple(line_text(name, f"{where}[{index}]") for index, name in enumerate(value))


def read_lines(items, read_one, *, where: str) -> tuple[OrderLine, ...]:
    """Each of `items` (a list) read by `read_one(item, place)`; LineProblem names the first that fails."""
    if not isinstance(items, list):
        raise LineProblem(f"{where} must be a list")
    if len(items) > MAX_LINES:
        raise LineProblem(f"{where} holds more than {MAX_LINES} lines")
    return tuple(read_one(item, f"{where}[{index}]") for index, item in enumerate(items))


def read_items(value) -> OrderLines:
    """An order confirmation's `items` (attribution.contract.serializers.items documents them): its lines, or
    none with why they were ignored. Never refuses the order."""
    if value is None or value == []:
        return NO_LINES
    try:
        return OrderLines(lines=read_lines(value, _item, where="items"))
    except LineProblem as problem:
        return OrderLines(ignored=str(problem))


def _item(item, where: str) -> OrderLine:
    if not isinstance(item, dict):
        raise LineProblem(f"{where} must be an object")
    quantity = item.get("quantity")
    return OrderLine(
        gross=line_amount(item.get("amount"), f"{where}.amount"),  # after discounts, before tax
        quantity=1 if quantity is None else line_quantity(quantity, f"{where}.quantity"),
        sku=line_text(item.get("sku"), f"{where}.sku"),
        product_id=line_text(item.get("product_id"), f"{where}.product_id"),
        collections=line_collections(item.get("collections"), f"{where}.collections"),
    )


def lines_as_json(lines: OrderLines) -> dict | None:
    """An order's lines as the spool keeps them (attribution.durability): amounts as their text; None for none."""
    if lines is NO_LINES or lines == NO_LINES:
        return None
    return {
        "lines": [
            {
                **{name: getattr(line, name) for name in _TEXT_FIELDS},
                **{name: str(getattr(line, name)) for name in _AMOUNT_FIELDS},
                "quantity": line.quantity,
                "collections": list(line.collections),
            }
            for line in lines.lines
        ],
        "shipping": str(lines.shipping),
        "shipping_tax": str(lines.shipping_tax),
        "taxes_included": lines.taxes_included,
        "ignored": lines.ignored,
    }


def lines_from_json(data: dict | None) -> OrderLines:
    """The lines `lines_as_json` kept."""
    if not data:
        return NO_LINES
    return OrderLines(
        lines=tuple(
            OrderLine(
                **{name: line[name] for name in _TEXT_FIELDS},
                **{name: Decimal(line[name]) for name in _AMOUNT_FIELDS},
                quantity=line["quantity"],
                collections=tuple(line["collections"]),
            )
            for line in data["lines"]
        ),
        shipping=Decimal(data["shipping"]),
        shipping_tax=Decimal(data["shipping_tax"]),
        taxes_included=data["taxes_included"],
        ignored=data["ignored"],
    )


def lines_as_text(lines: OrderLines) -> str:
    """The lines as JSON text, for a text column (a book's row); "" for none."""
    kept = lines_as_json(lines)
    return "" if kept is None else json.dumps(kept, separators=(",", ":"))


def lines_from_text(text: str) -> OrderLines:
    return lines_from_json(json.loads(text)) if text else NO_LINES


_TEXT_FIELDS = ("sku", "product_id", "variant_id", "vendor")
_AMOUNT_FIELDS = ("gross", "discount", "tax")
