"""An amount update converts at the rate the commission locked when it was created, whatever rates came
since (docs/currencies.md)."""

from datetime import date
from decimal import Decimal

from attribution.fx import ecb, loading
from attribution.models import Commission
from tests.attribution.keyed import UPDATE

from .conftest import FRIDAY, FRIDAY_NOON
from .test_locked_on_the_order import order


def test_an_update_converts_at_the_locked_rate(rates, client, alice, prop, creator):
    commission = order(prop, creator, amount="200.00", currency="EUR", at=FRIDAY_NOON)
    loading.store([ecb.Rate(date(2026, 11, 2), "USD", Decimal("1.2500"))])  # Monday: a newer rate

    response = client.post(
        UPDATE,
        {"order_id": "FX-1", "new_order_amount": "100.00", "currency": "EUR"},
        content_type="application/json",
        **alice.headers,
    )

    assert response.json()["outcome"] == "tracked"
    commission = Commission.objects.get(pk=commission.pk)
    assert commission.amount == Decimal("10.00")
    assert (commission.fx_rate, commission.fx_rate_date) == ("1.1172", FRIDAY)
    assert commission.reporting_amount == Decimal("11.17")  # 10.00 × 1.1172 = 11.172


def test_an_update_of_an_unconverted_commission_leaves_it_unconverted(rates, client, alice, prop, creator):
    commission = order(prop, creator, amount="300.00", currency="AED", at=FRIDAY_NOON)

    client.post(
        UPDATE,
        {"order_id": "FX-1", "new_order_amount": "100.00", "currency": "AED"},
        content_type="application/json",
        **alice.headers,
    )

    commission = Commission.objects.get(pk=commission.pk)
    assert commission.amount == Decimal("10.00")
    assert commission.reporting_amount is None
    assert "AED" in commission.fx_reason
