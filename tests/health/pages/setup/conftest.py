"""The setup page's tests (/health/setup/): alice (Acme, with its property) and bob (Globex, with its own),
reading the page and sending a test order from it."""

from html import unescape

import pytest

from tests import factories

SETUP = "/health/setup/"


@pytest.fixture
def alice(brand, prop):
    """A user of brand Acme (property shop.acme.example)."""
    return factories.MembershipFactory(brand=brand, user=factories.UserFactory(username="alice")).user


@pytest.fixture
def bob(other_brand, other_prop):
    """A user of brand Globex."""
    return factories.MembershipFactory(brand=other_brand, user=factories.UserFactory(username="bob")).user


def _page(response) -> str:
    assert response.status_code == 200, response.content.decode()[:1000]
    return unescape(response.content.decode())


def _send(client, brand, **fields):
    data = {"host": "shop.acme.example", "order_amount": "10.00", "currency": "USD", "code": "", **fields}
    return client.post(f"{SETUP}?brand={brand.pk}", data)
