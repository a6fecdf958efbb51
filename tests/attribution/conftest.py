"""The callers of the keyed endpoints (tests/attribution/keyed.py): alice holds a developer key of
brand Acme, bob one of brand Globex."""

import pytest

from tests.attribution.keyed import caller_of


@pytest.fixture
def alice(brand, prop):
    return caller_of(brand, "alice")


@pytest.fixture
def bob(other_brand, other_prop):
    return caller_of(other_brand, "bob")
