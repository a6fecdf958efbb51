"""Reconciliation tests (docs/reconciliation.md): alice (brand Acme, shop.acme.example, 10 %) uploads
books through the API; bob holds a key of Globex; an anonymous caller sends none."""

import pytest

from tests.attribution.keyed import caller_of

URL = "/api/Affiliates/reconciliations"
HEADER = "order_id,amount,currency,status,code,click_id,ordered_at,test\n"


@pytest.fixture
def alice(brand, prop):
    return caller_of(brand, "alice")


@pytest.fixture
def bob(other_brand, other_prop):
    return caller_of(other_brand, "bob")


@pytest.fixture
def upload(client):
    """upload(csv_text, caller, query=...): the API's answer to a book sent as text/csv."""

    def send(text, caller=None, *, content_type="text/csv", query="", **extra):
        body = text.encode() if isinstance(text, str) else text
        headers = caller.headers if caller is not None else {}
        return client.post(
            URL + (f"?{query}" if query else ""), body, content_type=content_type, **headers, **extra
        )

    return send


@pytest.fixture
def apply_run(client):
    """apply_run(run_id, caller): the API's answer to an apply."""

    def send(run_id, caller):
        return client.post(f"{URL}/{run_id}/apply", **caller.headers)

    return send


def summary_of(response) -> dict:
    assert response.status_code in (200, 201), response.content
    return response.json()["reconciliation"]


def rows_of(client, caller, run_id, **query) -> list[dict]:
    answer = client.get(f"{URL}/{run_id}", query, **caller.headers)
    assert answer.status_code == 200, answer.content
    return answer.json()["reconciliation"]["rows"]


def book(*lines: str, header: str = HEADER) -> str:
    return header + "".join(line + "\n" for line in lines)
