"""Where a Shopify export's taxes lie: its line items carry no tax and no "prices include tax" flag, only the
order's Subtotal, Shipping, Taxes and Total on its first row. Those four tell which: Total = Subtotal + Shipping
when the shop's prices include tax, Subtotal + Shipping + Taxes when tax is added on top. The Taxes are then
spread over the lines and the shipping in proportion to their amounts, so that a commission plan takes the tax out
of a tax-inclusive shop's lines (or adds it, when the plan counts tax) as it does for the same order from a
webhook or the sync, which read each line's tax."""

from decimal import ROUND_HALF_UP, Decimal

from attribution.orders.lines import ZERO, OrderLine, OrderLines

CENT = Decimal("0.01")


def with_taxes(lines: tuple[OrderLine, ...], figures: tuple) -> OrderLines:
    """The order's lines with the export's taxes spread over them; as they are when the figures are missing or
    add up neither way (an order-level edit the export does not show)."""
    subtotal, shipping, taxes, total = figures
    if None in figures or taxes <= 0:
        return OrderLines(lines=lines, shipping=shipping or ZERO)
    if abs(subtotal + shipping - total) <= CENT:
        included = True
    elif abs(subtotal + shipping + taxes - total) <= CENT:
        included = False
    else:
        return OrderLines(lines=lines, shipping=shipping)
    amounts = [line.gross - line.discount for line in lines] + [shipping]
    shares = _spread(taxes, amounts)
    return OrderLines(
        lines=tuple(line._replace(tax=share) for line, share in zip(lines, shares, strict=False)),
        shipping=shipping,
        shipping_tax=shares[-1],
        taxes_included=included,
    )


def _spread(taxes: Decimal, amounts: list[Decimal]) -> list[Decimal]:
    """`taxes` in cents over `amounts` in proportion; the last non-zero amount takes the rounding's remainder."""
    whole = sum(amounts, ZERO)
    if whole <= 0:
        return [ZERO] * len(amounts)
    shares = [(taxes * amount / whole).quantize(CENT, rounding=ROUND_HALF_UP) for amount in amounts]
    last = max(i for i, amount in enumerate(amounts) if amount > 0)
    shares[last] += taxes - sum(shares, ZERO)
    return shares
