"""The read API shows each commission in the brand's reporting currency as it was locked, with its rate,
date and source, or null with the reason (docs/api.md, docs/currencies.md)."""

import yaml

from tests.attribution.keyed import order_url

from .conftest import FRIDAY_NOON
from .test_locked_on_the_order import order


def test_a_converted_commission_shows_its_reporting_amount_rate_date_and_source(
    rates, client, alice, prop, creator
):
    order(prop, creator, amount="200.00", currency="EUR", at=FRIDAY_NOON)

    commission = client.get(order_url("FX-1"), **alice.headers).json()["commission"]

    assert (commission["amount"], commission["currency"]) == ("20.00", "EUR")
    assert commission["reporting"] == {
        "amount": "22.34",
        "currency": "USD",
        "rate": "1.1172",
        "rate_date": "2026-10-30",
        "source": "ECB",
    }
    assert commission["reporting_reason"] is None


def test_a_commission_without_a_rate_shows_null_and_why(rates, client, alice, prop, creator):
    order(prop, creator, amount="300.00", currency="AED", at=FRIDAY_NOON)

    commission = client.get(order_url("FX-1"), **alice.headers).json()["commission"]

    assert commission["reporting"] is None
    assert commission["reporting_reason"].startswith("No ECB reference rate for AED")


def test_another_brands_key_reads_nothing_of_it(rates, client, bob, prop, creator):
    order(prop, creator, amount="200.00", currency="EUR", at=FRIDAY_NOON)

    assert client.get(order_url("FX-1"), **bob.headers).status_code == 404


def test_the_openapi_schema_documents_reporting(client):
    schema = yaml.safe_load(client.get("/api/schema/").content)

    read = schema["paths"]["/api/Affiliates/orders/{order_id}"]["get"]
    commission = read["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["commission"]
    reporting = commission["properties"]["reporting"]
    assert reporting["nullable"] is True
    assert set(reporting["required"]) == {"amount", "currency", "rate", "rate_date", "source"}
    assert commission["properties"]["reporting_reason"]["nullable"] is True
