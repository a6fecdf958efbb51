"""The pricing of one order under one plan (attribution.plans.engine): each condition, precedence, flat
amounts per unit and per order, the base policy, the minimum, both caps, both tier kinds and flat amounts in
another currency. Pure: no database."""

from decimal import Decimal as D

from attribution.orders.lines import OrderLine, OrderLines
from attribution.plans.document import parse
from attribution.plans.engine import Month, price

ANA, BEA = 12, 13


def plan(**document):
    return parse({"currency": "USD", "default": {"percent": "10"}, **document})


def priced(the_plan, *, amount="100", lines=(), returning=False, creator=BEA, month=None, fx=D(1), **kw):
    return price(
        the_plan,
        version=2,
        amount=D(amount),
        currency=kw.get("currency", "USD"),
        is_returning_customer=returning,
        lines=OrderLines(lines=tuple(lines), **kw.get("order", {})),
        creator_id=creator,
        month=month,
        fx=fx,
    )


def test_an_order_with_no_lines_is_one_line_of_its_whole_amount_at_the_default():
    result = priced(plan(), amount="59.90")

    assert result.amount == D("5.99")
    assert result.rate_percent == D("10.00")
    assert result.rules == ("Default",)
    assert result.calculation["lines"] == [
        {
            "item": "whole order",
            "rule": "Default",
            "base": "59.90",
            "percent": "10",
            "flat": None,
            "commission": "5.99",
        }
    ]
    assert result.calculation["plan_version"] == 2
    assert result.calculation["total"] == "5.99"


def test_a_creator_rule_pays_her_own_rate_and_not_another_creators():
    the_plan = plan(rules=[{"name": "Ana's rate", "when": {"creators": [ANA]}, "percent": "20"}])

    assert priced(the_plan, creator=ANA).amount == D("20.00")
    assert priced(the_plan, creator=BEA).amount == D("10.00")


def test_a_customer_rule_tells_new_from_returning():
    the_plan = plan(rules=[{"name": "Returning", "when": {"customer": "returning"}, "percent": "5"}])

    assert priced(the_plan, returning=True).amount == D("5.00")
    assert priced(the_plan, returning=False).amount == D("10.00")


def test_an_order_amount_rule_holds_from_its_threshold():
    the_plan = plan(rules=[{"name": "Big", "when": {"order_amount_at_least": "100"}, "percent": "12"}])

    assert priced(the_plan, amount="100").amount == D("12.00")
    assert priced(the_plan, amount="99.99").amount == D("10.00")


def test_line_conditions_sku_product_collection_and_vendor_each_take_their_lines():
    the_plan = plan(
        rules=[
            {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
            {"name": "Product 7", "when": {"product_ids": ["7"]}, "percent": "20"},
            {"name": "Summer", "when": {"collections": ["summer"]}, "percent": "30"},
            {"name": "Acme", "when": {"vendors": ["Acme"]}, "percent": "40"},
        ]
    )
    lines = [
        OrderLine(gross=D("100"), sku="BELT-01"),
        OrderLine(gross=D("100"), product_id="7"),
        OrderLine(gross=D("100"), collections=("winter", "summer")),
        OrderLine(gross=D("100"), vendor="Acme"),
        OrderLine(gross=D("100"), sku="HAT"),
    ]

    result = priced(the_plan, amount="500", lines=lines)

    assert result.rules == ("Belts", "Product 7", "Summer", "Acme", "Default")
    assert result.amount == D("115.00")  # 15 + 20 + 30 + 40 + 10
    assert result.rate_percent == D("23.00")


def test_the_first_matching_rule_wins_and_line_rules_take_their_lines_before_order_rules():
    the_plan = plan(
        rules=[
            {"name": "Ana's rate", "when": {"creators": [ANA]}, "percent": "20"},
            {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
            {"name": "Belts again", "when": {"skus": ["BELT-01"]}, "percent": "50"},
            {"name": "New customers", "when": {"customer": "new"}, "percent": "12"},
        ]
    )
    lines = [OrderLine(gross=D("40"), sku="BELT-01"), OrderLine(gross=D("60"), sku="HAT")]

    result = priced(the_plan, lines=lines, creator=ANA)

    assert result.rules == ("Belts", "Ana's rate")
    assert result.amount == D("18.00")  # 40 x 15% + 60 x 20%


def test_a_line_rule_for_some_creators_only_takes_their_lines():
    the_plan = plan(
        rules=[{"name": "Kit", "when": {"collections": ["summer"], "creators": [ANA]}, "flat": "3.00"}]
    )
    line = OrderLine(gross=D("50"), quantity=2, collections=("summer",))

    assert priced(the_plan, lines=[line], creator=ANA).amount == D("6.00")  # 3.00 per unit, 2 units
    assert priced(the_plan, lines=[line], creator=BEA).amount == D("5.00")


def test_a_flat_amount_in_an_order_rule_is_paid_once_per_order():
    the_plan = plan(rules=[{"name": "Ana flat", "when": {"creators": [ANA]}, "flat": "4.00", "percent": "5"}])
    lines = [OrderLine(gross=D("30"), quantity=3), OrderLine(gross=D("70"))]

    result = priced(the_plan, lines=lines, creator=ANA)

    assert result.amount == D("9.00")  # 5% of 100, and 4.00 once
    assert result.calculation["per_order"] == [{"rule": "Ana flat", "flat": "4.00"}]


def test_the_base_counts_after_discounts_without_shipping_or_tax_by_default():
    lines = OrderLines(
        lines=(OrderLine(gross=D("100"), discount=D("20"), tax=D("8")),),
        shipping=D("10"),
        shipping_tax=D("1"),
    )

    result = price(
        plan(),
        version=1,
        amount=D("99"),
        currency="USD",
        is_returning_customer=False,
        lines=lines,
        creator_id=BEA,
    )

    assert result.amount == D("8.00")
    assert result.calculation["base"] == {
        "gross": "100.00",
        "discounts": "20.00",
        "tax_taken_out": "0.00",
        "tax_added": "0.00",
        "shipping": "0.00",
        "total": "80.00",
    }


def test_a_shop_whose_prices_include_tax_has_its_tax_taken_out():
    lines = OrderLines(lines=(OrderLine(gross=D("120"), tax=D("20")),), taxes_included=True)

    result = price(
        plan(),
        version=1,
        amount=D("120"),
        currency="USD",
        is_returning_customer=False,
        lines=lines,
        creator_id=BEA,
    )

    assert result.calculation["base"]["tax_taken_out"] == "20.00"
    assert result.amount == D("10.00")


def test_a_base_with_shipping_and_tax_counts_them_whichever_way_the_shop_prices():
    the_plan = plan(base={"after_discounts": False, "shipping": True, "tax": True})
    excluded = OrderLines(
        lines=(OrderLine(gross=D("100"), discount=D("20"), tax=D("8")),),
        shipping=D("10"),
        shipping_tax=D("1"),
    )
    included = OrderLines(
        lines=(OrderLine(gross=D("108"), tax=D("8")),), shipping=D("11"), taxes_included=True
    )

    on_top = price(
        the_plan,
        version=1,
        amount=D("99"),
        currency="USD",
        is_returning_customer=False,
        lines=excluded,
        creator_id=BEA,
    )
    inside = price(
        the_plan,
        version=1,
        amount=D("119"),
        currency="USD",
        is_returning_customer=False,
        lines=included,
        creator_id=BEA,
    )

    assert on_top.calculation["base"]["total"] == "119.00"  # 100 + 8 tax + 10 shipping + 1 its tax
    assert on_top.amount == D("11.90")
    assert [line.get("item") for line in on_top.calculation["lines"]] == [None, "shipping"]
    assert inside.calculation["base"]["total"] == "119.00"


def test_below_the_minimum_the_order_pays_nothing_and_says_why():
    result = priced(plan(minimum_order_amount="20.00"), amount="19.99")

    assert result.amount == D("0.00")
    assert result.calculation["limits"][0]["kind"] == "minimum_order_amount"
    assert "below the plan's minimum of 20.00 USD" in result.calculation["limits"][0]["why"]
    assert priced(plan(minimum_order_amount="20.00"), amount="20.00").amount == D("2.00")


def test_the_cap_per_order_cuts_the_commission_and_is_named():
    result = priced(plan(cap_per_order="50.00"), amount="1000")

    assert result.amount == D("50.00")
    assert result.calculation["limits"] == [{"kind": "cap_per_order", "cap": "50.00", "before": "100.00"}]


def test_the_cap_per_creator_month_pays_what_is_left_of_it():
    the_plan = plan(cap_per_creator_month="1000.00")

    assert priced(the_plan, amount="100", month=Month(5, D("9000"), D("995.00"))).amount == D("5.00")
    assert priced(the_plan, amount="100", month=Month(6, D("9000"), D("1000.00"))).amount == D("0.00")
    limit = priced(the_plan, amount="100", month=Month(5, D("9000"), D("995.00"))).calculation["limits"][0]
    assert limit == {"kind": "cap_per_creator_month", "cap": "5.00", "before": "10.00"}


def test_an_orders_tier_replaces_the_rate_from_its_threshold_this_order_included():
    the_plan = plan(tiers=[{"metric": "orders", "from": 10, "percent": "15", "retroactive": False}])

    assert priced(the_plan, month=Month(8)).amount == D("10.00")  # the 9th order
    tenth = priced(the_plan, month=Month(9))
    assert tenth.amount == D("15.00")
    assert tenth.calculation["tier"] == {
        "metric": "orders",
        "from": "10",
        "percent": "15",
        "retroactive": False,
        "reached": "10",
    }


def test_a_revenue_tier_counts_this_orders_base_and_says_whether_it_is_retroactive():
    the_plan = plan(tiers=[{"metric": "revenue", "from": "1000", "percent": "12", "retroactive": True}])

    assert priced(the_plan, amount="100", month=Month(3, D("899"))).amount == D("10.00")
    reached = priced(the_plan, amount="100", month=Month(3, D("900")))
    assert reached.amount == D("12.00")
    assert reached.calculation["tier"]["retroactive"] is True


def test_flat_amounts_and_caps_are_converted_into_the_orders_currency_at_the_rate_given():
    the_plan = plan(rules=[{"name": "Kit", "when": {"skus": ["KIT"]}, "flat": "3.00"}], cap_per_order="50.00")
    line = OrderLine(gross=D("100"), quantity=2, sku="KIT")

    result = priced(the_plan, lines=[line], fx=D("0.9"), currency="EUR")

    assert result.amount == D("5.40")  # 2 x 3.00 USD at 0.9
    assert result.calculation["fx_rate"] == "0.9"
    assert result.calculation["plan_currency"] == "USD"


def test_a_flat_amount_without_a_rate_counts_as_nothing_and_says_so():
    the_plan = plan(rules=[{"name": "Kit", "when": {"skus": ["KIT"]}, "flat": "3.00"}])

    result = priced(the_plan, lines=[OrderLine(gross=D("10"), sku="KIT")], fx=None, currency="EUR")

    assert result.amount == D("0.00")
    assert "No rate from USD to EUR" in result.calculation["fx_missing"]


def test_the_total_is_rounded_once_from_the_exact_lines():
    lines = [OrderLine(gross=D("0.05")), OrderLine(gross=D("0.05")), OrderLine(gross=D("0.05"))]

    assert priced(plan(), amount="0.15", lines=lines).amount == D("0.02")  # 0.015 rounds half up, once
