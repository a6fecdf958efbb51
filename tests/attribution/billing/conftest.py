"""Billing's tests: Acme's two creators and their October, commissions in two currencies locked in it."""

import pytest

from attribution.billing.writers import lock_due_commissions
from tests import factories
from tests.attribution.billed import NOV_03, OCT_10, OCT_20, pending

# (order id, creator, currency, commission amount, when its return window closes, test?)
RAW = [
    ("A-1", "Ana", "USD", "10.00", OCT_10, False),
    ("A-2", "Ana", "USD", "5.55", OCT_20, False),
    ("A-3", "Ana", "EUR", "7.10", OCT_10, False),
    ("A-4", "Ana", "JPY", "1500", OCT_20, False),
    ("B-1", "Bo", "USD", "0.45", OCT_10, False),
    ("B-2", "Bo", "USD", "20.00", OCT_20, False),
    ("B-3", "Bo", "KWD", "1.234", OCT_20, False),
    ("B-4", "Bo", "USD", "99.00", NOV_03, False),  # locks in November
    ("T-1", "Ana", "USD", "50.00", OCT_10, True),  # a test order: never billed
    ("T-2", "Bo", "EUR", "60.00", OCT_20, True),
]


@pytest.fixture
def creators(brand):
    return {name: factories.CreatorFactory(brand=brand, name=name) for name in ("Ana", "Bo")}


@pytest.fixture
def october(brand, creators, other_brand):
    """RAW's commissions, plus one of another brand, locked by runs on October 10 and 20 and November 3."""
    made = {
        order_id: pending(
            brand,
            order_id,
            creator=creators[name],
            currency=currency,
            amount=amount,
            closes_at=closes,
            is_test=test,
        )
        for order_id, name, currency, amount, closes, test in RAW
    }
    pending(other_brand, "G-1", creator=factories.CreatorFactory(brand=other_brand), amount="1000.00")
    for now in (OCT_10, OCT_20, NOV_03):
        lock_due_commissions(now=now)
    return made
