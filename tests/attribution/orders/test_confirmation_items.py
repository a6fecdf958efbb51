"""An order confirmation's optional `items` (issue 56, docs/api.md): its lines, each {"sku", "product_id",
"quantity", "amount", "collections"}, `amount` the line's total after discounts and before tax. Items never refuse
the order: what cannot be read is ignored, the order judged on orderAmount alone, and the answer, the trace and
the health pages say so."""

from decimal import Decimal

import pytest

from attribution.models import Order
from attribution.orders.lines import NO_LINES, OrderLine
from health.log.models import OutcomeEvent
from tests.attribution.typed_orders import Decided
from tests.factories import DiscountCodeFactory

from .confirming import URL, order

pytestmark = pytest.mark.django_db


@pytest.fixture
def code(brand, creator):
    return DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")


def test_items_become_the_order_s_lines(api, prop, monkeypatch):
    decided = Decided(monkeypatch)
    items = [
        {"sku": "SHIRT-L", "product_id": 8123, "quantity": 2, "amount": "39.90", "collections": ["summer"]},
        {"sku": "BELT-01", "amount": 20},
    ]

    answer = api.post(URL, order(items=items))

    assert answer.status_code == 200 and "Warning" not in answer.json()["message"]
    assert decided.orders[0].lines.lines == (
        OrderLine(
            gross=Decimal("39.90"), quantity=2, sku="SHIRT-L", product_id="8123", collections=("summer",)
        ),
        OrderLine(gross=Decimal("20"), sku="BELT-01"),
    )
    assert not OutcomeEvent.objects.get().has_warnings


@pytest.mark.parametrize(
    ("items", "why"),
    [
        ([{"sku": "A", "amount": "1e6"}], "items[0].amount must be a plain number"),
        ([{"sku": "A", "amount": "10"}, {"sku": "B"}], "items[1].amount is missing"),
        ([{"amount": "10", "quantity": 0}], "items[0].quantity must be a whole number from 1"),
        ([{"amount": "10", "collections": "summer"}], "items[0].collections must be a list"),
        (["SHIRT-L"], "items[0] must be an object"),
        ({"sku": "A", "amount": "10"}, "items must be a list"),
        ("SHIRT-L x2", "items must be a list"),
    ],
)
def test_items_that_cannot_be_read_are_ignored_and_the_order_kept(api, prop, code, items, why, monkeypatch):
    decided = Decided(monkeypatch)

    answer = api.post(URL, order(code="ANA10", items=items))

    assert answer.status_code == 200
    assert answer.json()["outcome"] == "tracked"
    assert f"Warning: items were ignored: {why}" in answer.json()["message"]
    assert decided.orders[0].lines.lines == () and why in decided.orders[0].lines.ignored
    stored = Order.objects.get()
    assert stored.amount == Decimal("59.9")
    assert stored.trace[0]["signal"] == "lines" and stored.trace[0]["result"] == "ignored"
    assert why in stored.trace[0]["detail"]
    event = OutcomeEvent.objects.get()  # counted among the brand's warned events on the health pages
    assert event.has_warnings and why in event.warnings[0]


@pytest.mark.parametrize("items", [None, []])
def test_no_items_is_no_lines_and_no_warning(api, prop, items, monkeypatch):
    decided = Decided(monkeypatch)

    answer = api.post(URL, order(items=items))

    assert decided.orders[0].lines is NO_LINES
    assert "Warning" not in answer.json()["message"]
