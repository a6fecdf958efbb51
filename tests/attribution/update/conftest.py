"""An update's tests: Acme's order A-1 with its commission, an update as a caller sends it, and the check that
nothing of the commission moved."""

import pytest

from attribution.models import AmountChange
from tests.attribution.keyed import UPDATE, commission_for, fresh


@pytest.fixture
def commission(brand):
    """Order A-1: 100.00 USD at 10 %, so a 10.00 USD commission."""
    return commission_for(brand, order_id="A-1", order_amount="100.00", rate="10")


def update(client, caller, body, **extra):
    headers = caller.headers if caller is not None else {}
    return client.post(UPDATE, body, content_type="application/json", **headers, **extra)


def assert_unchanged(commission):
    now = fresh(commission)
    assert (now.order_amount, now.amount, now.updated_at) == (
        commission.order_amount,
        commission.amount,
        commission.updated_at,
    )
    assert not AmountChange.objects.exists()
