"""The order path prices a tracked order with its brand's plan version in effect (attribution.plans), keeps
the calculation on the commission, reads the creator's month only for a monthly cap or tiers, and costs no
query more per order than before plans (the plan rides on the brand's cached resolution)."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from attribution.billing.writers import pay_statement
from attribution.fx import ecb, loading
from attribution.models import Adjustment, Commission, FxRate, Statement
from attribution.orders.confirmation import confirm_order
from attribution.orders.decision import Decision, Fields, rows_to_store
from attribution.orders.lines import OrderLine, OrderLines
from attribution.outcomes import Outcome
from attribution.plans import versions
from attribution.plans.repricing import reprice
from attribution.plans.shown import calculation as shown
from attribution.plans.store import price_order
from brands.models import PlanVersion
from brands.resolution import resolve_host
from tests.factories import ClickFactory, DiscountCodeFactory

from ..orders.confirming import URL, answer, order
from ..orders.test_confirmation_faults_and_cost import (
    THROTTLE,
    TRANSACTION,
    statements,
    stored_with_its_record,
)

AT = datetime(2026, 10, 30, 12, 0, tzinfo=UTC)
SINCE = "2026-10-01T00:00:00Z"


def store_plan(brand, **document):
    versions.save(
        brand=brand,
        document={"currency": "USD", "default": {"percent": "10"}, "effective_from": SINCE, **document},
        at=AT - timedelta(days=30),
        created_by="test",
    )


def priced(prop, creator, *, lines=None, amount="100", currency="USD", returning=False, at=AT):
    """The commission row the decision would store for an order of `creator` with `lines`."""
    resolution = resolve_host(prop.host)
    fields = order_fields(lines=lines, amount=amount, currency=currency, returning=returning)
    decision = Decision(Outcome.TRACKED, "code", creator_id=creator.pk, creator_name=creator.name)
    _, commission = rows_to_store(
        brand=resolution.brand, resolution=resolution, fields=fields, decision=decision, received_at=at
    )
    return commission


def order_fields(*, lines=None, amount="100", currency="USD", returning=False) -> Fields:
    return Fields(
        order_id="L-1",
        amount=Decimal(amount),
        currency=currency,
        is_test=False,
        is_returning_customer=returning,
        click_id=None,
        code=None,
        email_hash=None,
        return_window_closes_at=None,
        lines=lines or OrderLines(),
    )


def coded(prop, creator, order_id, amount="100.00", at=AT):
    result = confirm_order(
        payload={
            "orderId": order_id,
            "orderAmount": amount,
            "currency": "USD",
            "code": "ANA10",
            "page_url": f"https://{prop.host}/thanks",
        },
        received_at=at,
    )
    assert result.outcome == "tracked", result.body()
    return Commission.objects.get(order__order_id=order_id)


@pytest.fixture
def code(prop, creator):
    return DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")


def test_an_order_confirmation_is_priced_by_the_creators_own_rule_and_keeps_its_calculation(
    prop, creator, code
):
    store_plan(
        prop.brand, rules=[{"name": "Ana's rate", "when": {"creators": [creator.pk]}, "percent": "20"}]
    )

    commission = coded(prop, creator, "A-1")

    assert (commission.amount, commission.rate_percent, commission.plan_version) == (
        Decimal("20.00"),
        Decimal("20.00"),
        2,
    )
    assert commission.calculation["lines"][0]["rule"] == "Ana's rate"
    assert commission.calculation["total"] == "20.00"
    assert commission.order.trace[-1] == {
        "signal": "plan",
        "result": "priced",
        "detail": "plan version 2: whole order by Ana's rate; 20.00 USD",
    }


def test_a_brand_that_stored_no_plan_pays_its_rates_as_before(prop, creator, code):
    commission = coded(prop, creator, "A-1", amount="59.90")

    assert (commission.amount, commission.plan_version) == (Decimal("5.99"), 1)
    assert shown(commission)["lines"][0]["rule"] == "Default"
    assert [step["signal"] for step in commission.order.trace] == ["code"]  # its trace as before plans


def test_lines_are_priced_one_by_one_with_the_base_policy(prop, creator):
    store_plan(
        prop.brand,
        rules=[
            {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
            {"name": "Kit", "when": {"collections": ["summer"]}, "flat": "3.00"},
        ],
    )
    lines = OrderLines(
        lines=(
            OrderLine(
                gross=Decimal("60"), quantity=2, discount=Decimal("10"), tax=Decimal("5"), sku="BELT-01"
            ),
            OrderLine(gross=Decimal("25"), quantity=2, collections=("summer",)),
            OrderLine(gross=Decimal("40"), sku="HAT"),
        ),
        shipping=Decimal("7"),
    )

    commission = priced(prop, creator, lines=lines, amount="122")

    # 50 x 15% + 2 x 3.00 + 40 x 10%; shipping and tax left out, the discount taken off (base 115.00)
    assert commission["amount"] == Decimal("17.50")
    assert [line["rule"] for line in commission["calculation"]["lines"]] == ["Belts", "Kit", "Default"]
    assert commission["calculation"]["base"]["discounts"] == "10.00"
    assert commission["rate_percent"] == Decimal("15.22")  # 17.50 of a base of 115.00


def test_a_version_takes_effect_from_its_date(prop, creator):
    store_plan(prop.brand, default={"percent": "30"}, effective_from="2026-11-01T00:00:00Z")

    assert priced(prop, creator, at=AT)["amount"] == Decimal("10.00")  # version 1, the rates
    assert priced(prop, creator, at=AT + timedelta(days=2))["amount"] == Decimal("30.00")


def test_a_flat_amount_in_euros_is_converted_at_the_rate_the_commission_locks(prop, creator):
    FxRate.objects.filter(day__gte=AT.date()).delete()
    loading.store([ecb.Rate(AT.date(), "USD", Decimal("1.1172"))])
    store_plan(prop.brand, currency="EUR", default={"flat": "2.00"})

    commission = priced(prop, creator)

    assert commission["amount"] == Decimal("2.23")  # 2.00 EUR x 1.1172 = 2.2344 USD
    assert commission["calculation"]["fx_rate"] == "1.1172"


def test_an_orders_tier_reached_by_the_third_order_of_the_month_pays_its_rate(prop, creator, code):
    store_plan(prop.brand, tiers=[{"metric": "orders", "from": 3, "percent": "15", "retroactive": False}])

    amounts = [coded(prop, creator, f"T-{i}", at=AT + timedelta(minutes=i)).amount for i in range(4)]

    assert amounts == [Decimal("10.00"), Decimal("10.00"), Decimal("15.00"), Decimal("15.00")]


def test_the_monthly_cap_cuts_the_order_that_reaches_it(prop, creator, code):
    store_plan(prop.brand, cap_per_creator_month="25.00")

    amounts = [coded(prop, creator, f"C-{i}", at=AT + timedelta(minutes=i)).amount for i in range(3)]

    assert amounts == [Decimal("10.00"), Decimal("10.00"), Decimal("5.00")]
    last = Commission.objects.get(order__order_id="C-2")
    assert last.calculation["limits"][0]["kind"] == "cap_per_creator_month"


def test_below_the_minimum_the_order_is_tracked_and_pays_nothing(prop, creator, code):
    store_plan(prop.brand, minimum_order_amount="20.00")

    commission = coded(prop, creator, "M-1", amount="19.99")

    assert commission.order.outcome == "tracked"
    assert commission.amount == Decimal("0.00")
    assert shown(commission)["limits"][0]["kind"] == "minimum_order_amount"


@pytest.mark.django_db(transaction=True)
def test_a_fifty_rule_plan_costs_the_order_path_no_query(api, prop, creator, django_assert_max_num_queries):
    store_plan(
        prop.brand,
        rules=[{"name": f"r{i}", "when": {"skus": [f"SKU-{i}"]}, "percent": "12"} for i in range(50)],
    )
    click = ClickFactory(property=prop, creator=creator, clicked_at=datetime.now(UTC) - timedelta(minutes=5))
    warm = ClickFactory(property=prop, creator=creator, clicked_at=datetime.now(UTC) - timedelta(minutes=5))
    answer(api.post(URL, order(orderId="WARM-UP", clickId=warm.click_id)), 200, "tracked")

    with django_assert_max_num_queries(4 + TRANSACTION + THROTTLE) as captured:
        answer(api.post(URL, order(orderId="A-1001", clickId=click.click_id)), 200, "tracked")

    assert statements(captured) == ["INSERT", "SELECT", *stored_with_its_record("order", "commission")]
    assert Commission.objects.get(order__order_id="A-1001").plan_version == 2


def tiered(prop, creator, *, retroactive):
    store_plan(
        prop.brand, tiers=[{"metric": "orders", "from": 3, "percent": "15", "retroactive": retroactive}]
    )
    return [coded(prop, creator, f"T-{i}", at=AT + timedelta(minutes=i)) for i in range(3)]


def test_a_retroactive_tier_pays_the_months_earlier_orders_as_one_adjustment_when_its_statement_is_paid(
    prop, creator, code
):
    tiered(prop, creator, retroactive=True)
    statement = Statement.objects.create(brand=prop.brand, month=date(2026, 10, 1))

    pay_statement(statement_id=statement.pk, at=datetime(2026, 11, 2, tzinfo=UTC))
    pay_statement(statement_id=statement.pk, at=datetime(2026, 11, 3, tzinfo=UTC))  # paid once: nothing more

    adjustment = Adjustment.objects.get()
    assert (adjustment.amount, adjustment.reason, adjustment.statement) == (
        Decimal("10.00"),
        "tier",
        statement,
    )
    assert adjustment.commission.order.order_id == "T-2"  # the order that reached the tier
    # the earlier orders' commissions are not edited: 10.00 each, 5 % x 100 each owed on the statement
    assert sorted(Commission.objects.values_list("amount", flat=True)) == [Decimal("10.00")] * 2 + [
        Decimal("15.00")
    ]


def test_a_tier_that_is_not_retroactive_pays_only_from_its_threshold(prop, creator, code):
    tiered(prop, creator, retroactive=False)
    statement = Statement.objects.create(brand=prop.brand, month=date(2026, 10, 1))

    pay_statement(statement_id=statement.pk, at=datetime(2026, 11, 2, tzinfo=UTC))

    assert not Adjustment.objects.exists()


def test_an_amount_update_of_a_line_priced_order_keeps_each_lines_rule_and_share(prop, creator):
    store_plan(prop.brand, rules=[{"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "20"}])
    lines = OrderLines(
        lines=(OrderLine(gross=Decimal("40"), sku="BELT-01"), OrderLine(gross=Decimal("60"), sku="HAT"))
    )
    row = priced(prop, creator, lines=lines)
    commission = Commission(pk=1, order_id=1, **{k: v for k, v in row.items() if k != "hold_rules"})

    again = reprice(commission, order_amount=Decimal("50"))

    assert row["amount"] == Decimal("14.00")  # 40 x 20 % + 60 x 10 %
    assert again.amount == Decimal("7.00")  # 20 x 20 % + 30 x 10 %: each line kept its share and its rule
    assert [line["rule"] for line in again.calculation["lines"]] == ["Belts", "Default"]
    assert again.calculation["plan_version"] == 2


def test_version_1_follows_the_brands_rate_fields_as_an_account_manager_edits_them(prop, creator):
    PlanVersion.objects.create(
        brand=prop.brand,
        version=1,
        effective_from=datetime(1970, 1, 1, tzinfo=UTC),
        created_by="migration",
        document={
            "currency": "USD",
            "base": {"after_discounts": True, "shipping": True, "tax": True},
            "default": {"percent": "10"},
            "rules": [],
        },
    )
    prop.brand.commission_rate_percent = Decimal("8")
    prop.brand.save()
    lines = OrderLines(lines=(OrderLine(gross=Decimal("100"), tax=Decimal("10")),), shipping=Decimal("5"))

    commission = priced(prop, creator, lines=lines, amount="115")

    assert commission["amount"] == Decimal("9.20")  # 8 % of 115: the rate as edited, the base carried over


def test_an_order_taken_whole_by_the_default_stores_no_calculation_and_reads_the_one_it_was_priced_with(
    prop, creator, code
):
    store_plan(
        prop.brand,
        default={"percent": "8", "flat": "1.50"},
        minimum_order_amount="20.00",
        cap_per_order="9.00",
        rules=[{"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"}],
    )
    when_priced = price_order(
        brand=resolve_host(prop.host).brand,
        fields=order_fields(amount="100.00"),
        creator_id=creator.pk,
        at=AT,
    )

    commission = coded(prop, creator, "W-1", amount="100.00")

    assert commission.calculation is None  # it follows from the row and its version (attribution.plans.shown)
    assert commission.amount == Decimal("9.00")  # 8.00 + 1.50, cut to the cap per order
    assert shown(commission) == {**when_priced.calculation, "computed_on_read": True}
    assert shown(commission)["limits"][0]["kind"] == "cap_per_order"


def test_an_order_in_another_currency_than_a_plan_without_amounts_stores_no_calculation(prop, creator):
    store_plan(prop.brand, default={"percent": "8"})
    fields = order_fields(amount="120.00", currency="EUR")
    when_priced = price_order(
        brand=resolve_host(prop.host).brand, fields=fields, creator_id=creator.pk, at=AT
    )

    commission = priced(prop, creator, amount="120.00", currency="EUR")

    assert commission["calculation"] is None  # no rate between EUR and USD was used: fx is 1
    stored = Commission(**{**commission, "order_id": None})
    assert shown(stored) == {**when_priced.calculation, "computed_on_read": True}
    assert shown(stored)["total"] == "9.60"


@pytest.mark.parametrize(
    "plan_of, lines",
    [
        (lambda ana: {"rules": [{"name": "Ana's rate", "when": {"creators": [ana]}, "percent": "20"}]}, None),
        (lambda ana: {}, OrderLines(lines=(OrderLine(gross=Decimal("100"), sku="BELT-01"),))),
        (lambda ana: {"currency": "EUR", "default": {"flat": "2.00"}}, None),
        (lambda ana: {"cap_per_creator_month": "500.00"}, None),
        (
            lambda ana: {"tiers": [{"metric": "orders", "from": 5, "percent": "15", "retroactive": False}]},
            None,
        ),
    ],
    ids=["a rule took it", "its lines", "another currency", "a monthly cap", "tiers"],
)
def test_a_calculation_that_needs_more_than_the_row_is_stored_with_the_commission(
    prop, creator, plan_of, lines
):
    store_plan(prop.brand, **plan_of(creator.pk))

    commission = priced(prop, creator, lines=lines)

    assert commission["calculation"] is not None
    assert commission["calculation"]["plan_version"] == 2


def test_an_amount_update_re_prices_a_calculation_on_read_with_its_own_version(prop, creator, code):
    store_plan(prop.brand, default={"percent": "8", "flat": "1.50"})
    commission = coded(prop, creator, "W-1", amount="100.00")
    store_plan(prop.brand, default={"percent": "30"})  # version 3, in effect later: not this commission's

    made = reprice(commission, order_amount=Decimal("50.00"))

    assert made.amount == Decimal("5.50")  # 8 % of 50.00 and 1.50, by version 2
    assert made.kept is None
