"""An order's lines, as every way in reads them (issue 54's one typed order carries them; issue 56's
commission plans price them line by line). No database here.

Each way in fills them once:
- an order confirmation's optional `items` (each line's `amount` is its total after discounts, before tax);
- a Shopify order's `line_items` (price x quantity, less its `discount_allocations`; its tax lines);
- a WooCommerce order's `line_items` (`subtotal` before discounts, `total` after, `total_tax`);
- an order book's `Lineitem ...` columns.

An order that names no lines has none here: the plan prices it as one line of its whole base.
"""

from dataclasses import dataclass
from decimal import Decimal

ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class OrderLine:
    """One line of an order, in the order's currency. `gross` is the line's price times its quantity before
    any discount; `discount` what the shop's discounts took off the line; `tax` the line's tax (inside `gross`
    when the shop's prices include tax, on top of it otherwise)."""

    gross: Decimal
    quantity: int = 1
    discount: Decimal = ZERO
    tax: Decimal = ZERO
    sku: str = ""
    product_id: str = ""
    variant_id: str = ""
    vendor: str = ""
    collections: tuple[str, ...] = ()  # Shopify collection handles, WooCommerce category slugs, or as sent


@dataclass(frozen=True, slots=True)
class OrderLines:
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
