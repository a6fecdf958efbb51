"""A cancel's tests: Acme's order A-1 with its pending commission."""

import pytest

from tests.attribution.keyed import commission_for


@pytest.fixture
def commission(brand):
    return commission_for(brand, order_id="A-1")
