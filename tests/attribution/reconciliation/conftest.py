"""Reconciliation tests: alice (brand Acme, shop.acme.example, 10 %) uploads books through the API."""

import pytest

from tests.attribution.keyed import caller_of

URL = "/api/Affiliates/reconciliations"


@pytest.fixture
def alice(brand, prop):
    return caller_of(brand, "alice")


@pytest.fixture
def bob(other_brand, other_prop):
    return caller_of(other_brand, "bob")


@pytest.fixture
def upload(client):
    """upload(csv_text, caller, **query): the API's answer to a book sent as text/csv."""

    def send(text, caller, *, content_type="text/csv", query="", **extra):
        body = text.encode() if isinstance(text, str) else text
        return client.post(
            URL + (f"?{query}" if query else ""), body, content_type=content_type, **caller.headers, **extra
        )

    return send
