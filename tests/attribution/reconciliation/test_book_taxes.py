"""A Shopify export's order figures say where its taxes lie (attribution.reconciliation.books.taxes): inside the
prices when Total = Subtotal + Shipping, on top when Total = Subtotal + Shipping + Taxes; the Taxes are spread
over the lines and the shipping in proportion, to the cent."""

from decimal import Decimal as D

from attribution.orders.lines import OrderLine, OrderLines
from attribution.reconciliation.books.taxes import with_taxes

LINES = (OrderLine(gross=D("60.00"), quantity=2, discount=D("6.00")), OrderLine(gross=D("24.00")))


def test_prices_that_include_tax_have_the_taxes_spread_inside_them():
    lines = with_taxes(LINES, (D("78.00"), D("6.00"), D("14.00"), D("84.00")))

    assert lines.taxes_included is True
    assert [line.tax for line in lines.lines] == [D("9.00"), D("4.00")]
    assert (lines.shipping, lines.shipping_tax) == (D("6.00"), D("1.00"))


def test_tax_on_top_is_spread_the_same_way_and_not_included():
    lines = with_taxes(LINES, (D("78.00"), D("6.00"), D("6.72"), D("90.72")))

    assert lines.taxes_included is False
    assert sum((line.tax for line in lines.lines), D(0)) + lines.shipping_tax == D("6.72")


def test_the_cents_of_a_spread_add_up_to_the_taxes():
    thirds = (OrderLine(gross=D("10.00")), OrderLine(gross=D("10.00")), OrderLine(gross=D("10.00")))

    lines = with_taxes(thirds, (D("30.00"), D("0.00"), D("1.00"), D("31.00")))

    assert [line.tax for line in lines.lines] == [D("0.33"), D("0.33"), D("0.34")]
    assert lines.shipping_tax == D("0.00")


def test_figures_that_add_up_neither_way_leave_the_lines_untaxed():
    lines = with_taxes(LINES, (D("78.00"), D("6.00"), D("5.00"), D("100.00")))

    assert lines == OrderLines(lines=LINES, shipping=D("6.00"))


def test_an_order_without_taxes_or_figures_keeps_its_lines():
    assert with_taxes(LINES, (D("78.00"), D("6.00"), D("0.00"), D("84.00"))) == OrderLines(
        lines=LINES, shipping=D("6.00")
    )
    assert with_taxes(LINES, (None, None, None, None)) == OrderLines(lines=LINES)
