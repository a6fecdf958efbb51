"""GET /api/Affiliates/orders/<order_id>: the read API for reconciliation (docs/api.md, "Read API")."""

from datetime import UTC, datetime
from decimal import Decimal
from unittest.mock import ANY

import pytest

from attribution.models import AmountChange, Commission
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import CREATED_AT, UPDATE, commission_for, order_url

CHANGED_AT = datetime(2026, 5, 3, 9, 30, tzinfo=UTC)


@pytest.fixture
def updated_commission(brand):
    """Order A-1: 100.00 USD at 10 %, later updated to 49.90 USD (commission 4.99)."""
    commission = commission_for(brand, order_id="A-1", order_amount="100.00", rate="10")
    AmountChange.objects.create(
        brand=brand,
        commission=commission,
        old_order_amount=Decimal("100.00"),
        new_order_amount=Decimal("49.90"),
        old_amount=Decimal("10.00"),
        new_amount=Decimal("4.99"),
        changed_at=CHANGED_AT,
        request_id="req-update-0001",
    )
    Commission.objects.filter(pk=commission.pk).update(
        order_amount=Decimal("49.90"),
        amount=Decimal("4.99"),
        reporting_amount=Decimal("4.99"),
        updated_at=CHANGED_AT,
    )
    return commission


@pytest.fixture(autouse=True)
def _nothing_reaches_the_outcome_log(db):
    yield
    assert not OutcomeEvent.objects.exists(), "the read API writes nothing to the outcome log"


# --- access: the brand's own key, another brand's, none -----------------------------------------------------


def test_it_answers_the_keys_own_order_in_the_d14_shape(client, alice, updated_commission):
    response = client.get(order_url("A-1"), **alice.headers)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "found",
        "order": {
            "order_id": "A-1",
            "amount": "100",
            "currency": "USD",
            "is_test": False,
            "outcome": "tracked",
            "received_at": "2026-05-01T12:00:00+00:00",
            "trace": [],  # made by a factory, not decided (tests/attribution/orders/test_order_trace.py)
        },
        "commission": {
            "state": "pending",
            "amount": "4.99",
            "currency": "USD",
            "rate_percent": "10.00",
            # Made before plans: its version 1's calculation, computed on read (docs/plans.md).
            "plan_version": 1,
            "calculation": ANY,  # tests/attribution/plans/test_calculation_read.py
            "order_amount": "49.9",
            "created_at": "2026-05-01T12:00:00+00:00",
            "cancelled_at": None,
            "locked_at": None,
            "paid_at": None,
            "paid_amount": None,
            "statement": None,
            # In the brand's reporting currency (USD, its own): no rate needed (docs/currencies.md).
            "reporting": {
                "amount": "4.99",
                "currency": "USD",
                "rate": "1",
                "rate_date": "2026-05-01",
                "source": "same currency",
            },
            "reporting_reason": None,
            "state_changes": [],
            "holds": [],  # no review rule held it (docs/review.md)
            "history": [
                {
                    "changed_at": "2026-05-03T09:30:00+00:00",
                    "old_order_amount": "100",
                    "new_order_amount": "49.9",
                    "old_amount": "10.00",
                    "new_amount": "4.99",
                    "request_id": "req-update-0001",
                }
            ],
            "adjustments": [],
        },
    }


def test_it_answers_another_brands_order_exactly_like_an_unknown_order(client, bob, updated_commission):
    response = client.get(order_url("A-1"), **bob.headers)
    unknown = client.get(order_url("A-2"), **bob.headers)

    assert response.status_code == unknown.status_code == 404
    assert response.json() == {
        "success": False,
        "outcome": "order_not_found",
        "error": "Your brand has no live order A-1.",
    }
    assert unknown.json() == {**response.json(), "error": "Your brand has no live order A-2."}


def test_it_refuses_a_call_without_a_key(client, updated_commission):
    response = client.get(order_url("A-1"))

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json() == {
        "success": False,
        "outcome": "unauthorized",
        "error": "Authorization header missing. Fix: send 'Authorization: Bearer <developer key>'.",
    }


@pytest.mark.parametrize(
    "header, error",
    [
        ("Bearer Zz9Zz9Zz.0123456789abcdef0123456789abcdef", ', error="invalid_token"'),
        ("Token {key}", ""),
        ("Bearer", ', error="invalid_request"'),
        ("Bearer  {key}", ', error="invalid_request"'),
        ("Bearer {key} extra", ', error="invalid_request"'),
    ],
    ids=["unknown key", "another scheme", "no key", "two spaces", "a second word"],
)
def test_it_answers_unauthorized_to_a_bad_authorization_header(
    client, alice, updated_commission, header, error
):
    response = client.get(order_url("A-1"), HTTP_AUTHORIZATION=header.format(key=alice.plaintext))

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"' + error
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "unauthorized"
    assert "order" not in response.json()


def test_it_answers_unauthorized_to_a_revoked_key(client, alice, updated_commission):
    alice.key.revoke()

    response = client.get(order_url("A-1"), **alice.headers)

    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "outcome": "unauthorized",
        "error": "The developer key is unknown or revoked. Fix: send a current key from your account manager.",
    }


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_it_reads_the_bearer_scheme_case_insensitively(client, alice, updated_commission, scheme):
    response = client.get(order_url("A-1"), HTTP_AUTHORIZATION=f"{scheme} {alice.plaintext}")

    assert response.status_code == 200
    assert response.json()["order"]["order_id"] == "A-1"


def test_it_answers_unresolved_domain_when_the_keys_brand_is_inactive(
    client, alice, brand, updated_commission
):
    brand.is_active = False
    brand.save()

    response = client.get(order_url("A-1"), **alice.headers)

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "outcome": "unresolved_domain",
        "error": "The brand of this developer key is inactive.",
    }


# --- what it shows ------------------------------------------------------------------------------------------


def test_it_shows_an_order_received_without_a_commission(client, alice, brand):
    factories.OrderFactory(
        brand=brand,
        order_id="N-1",
        amount=Decimal("59.90"),
        currency="EUR",
        outcome="no_attribution",
        received_at=CREATED_AT,
    )

    response = client.get(order_url("N-1"), **alice.headers)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "found",
        "order": {
            "order_id": "N-1",
            "amount": "59.9",
            "currency": "EUR",
            "is_test": False,
            "outcome": "no_attribution",
            "received_at": "2026-05-01T12:00:00+00:00",
            "trace": [],
        },
        "commission": None,
    }


def test_it_shows_the_history_the_update_endpoint_wrote(client, alice, brand):
    commission_for(brand, order_id="A-1")
    client.post(
        UPDATE,
        {"order_id": "A-1", "new_order_amount": "80", "currency": "USD"},
        content_type="application/json",
        HTTP_X_REQUEST_ID="req-update-0001",
        **alice.headers,
    )
    client.post(
        UPDATE,
        {"order_id": "A-1", "new_order_amount": "60.50", "currency": "USD"},
        content_type="application/json",
        HTTP_X_REQUEST_ID="req-update-0002",
        **alice.headers,
    )
    OutcomeEvent.objects.all().delete()  # written by the updates, not by the read below

    commission = client.get(order_url("A-1"), **alice.headers).json()["commission"]

    assert (commission["order_amount"], commission["amount"]) == ("60.5", "6.05")
    assert [
        (h["old_order_amount"], h["new_order_amount"], h["old_amount"], h["new_amount"], h["request_id"])
        for h in commission["history"]
    ] == [
        ("100", "80", "10.00", "8.00", "req-update-0001"),
        ("80", "60.5", "8.00", "6.05", "req-update-0002"),
    ]


def test_it_shows_a_cancelled_commission_with_its_cancel_time(client, alice, brand):
    commission = commission_for(brand, order_id="A-1", state=Commission.State.CANCELLED)
    Commission.objects.filter(pk=commission.pk).update(cancelled_at=CHANGED_AT)

    body = client.get(order_url("A-1"), **alice.headers).json()

    assert body["commission"]["state"] == "cancelled"
    assert body["commission"]["cancelled_at"] == "2026-05-03T09:30:00+00:00"
    assert body["commission"]["amount"] == "10.00"


def test_it_shows_amounts_in_the_currencys_minor_units(client, alice, brand):
    commission_for(brand, order_id="J-1", order_amount="12345", currency="JPY", rate="12.5")

    body = client.get(order_url("J-1"), **alice.headers).json()

    assert body["order"]["amount"] == "12345"
    assert (body["commission"]["amount"], body["commission"]["rate_percent"]) == ("1543", "12.50")


def test_it_reads_the_test_namespace_with_test_true(client, alice, brand):
    commission_for(brand, order_id="A-1", order_amount="100.00")
    commission_for(brand, order_id="A-1", order_amount="20.00", is_test=True)

    live = client.get(order_url("A-1"), **alice.headers).json()
    test = client.get(order_url("A-1", test=True), **alice.headers).json()

    assert (live["order"]["is_test"], live["order"]["amount"], live["commission"]["amount"]) == (
        False,
        "100",
        "10.00",
    )
    assert (test["order"]["is_test"], test["order"]["amount"], test["commission"]["amount"]) == (
        True,
        "20",
        "2.00",
    )


def test_a_test_order_is_not_found_in_the_live_namespace_nor_the_reverse(client, alice, brand):
    commission_for(brand, order_id="T-1", is_test=True)
    commission_for(brand, order_id="L-1")

    test_as_live = client.get(order_url("T-1"), **alice.headers)
    live_as_test = client.get(order_url("L-1", test=True), **alice.headers)

    assert test_as_live.status_code == live_as_test.status_code == 404
    assert test_as_live.json()["error"] == "Your brand has no live order T-1."
    assert live_as_test.json()["error"] == "Your brand has no test order L-1."


def test_it_answers_invalid_params_for_a_test_flag_that_is_not_a_boolean(client, alice, updated_commission):
    response = client.get(order_url("A-1") + "?test=maybe", **alice.headers)

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "outcome": "invalid_params",
        "error": "test must be true or false.",
    }


@pytest.mark.parametrize(
    "order_id, path",
    [
        ("ORD 7", "ORD%207"),
        ("123", "123"),
        ("Ä-1", "%C3%84-1"),
        ("SO/2026/0001", "SO/2026/0001"),
        ("SO/2026/0001", "SO%2F2026%2F0001"),
        ("SO/2026/0001", "SO/2026/0001/"),
        ("A\nB", "A%0AB"),  # the order endpoints store an id holding a newline as sent
        ("A\r\nB", "A%0D%0AB/"),
    ],
)
def test_it_finds_an_order_id_sent_url_encoded(client, alice, brand, order_id, path):
    commission_for(brand, order_id=order_id)

    response = client.get(f"/api/Affiliates/orders/{path}", **alice.headers)

    assert response.status_code == 200
    assert response.json()["order"]["order_id"] == order_id


def test_an_order_id_no_database_can_store_is_not_found_not_a_fault(client, alice, brand):
    response = client.get("/api/Affiliates/orders/A%001", **alice.headers)

    assert response.status_code == 404
    assert response.json()["outcome"] == "order_not_found"


def test_a_read_takes_a_bounded_number_of_queries(
    client, alice, updated_commission, django_assert_max_num_queries
):
    with django_assert_max_num_queries(5):  # the key, the throttle's count, the order and its history
        response = client.get(order_url("A-1"), **alice.headers)

    assert response.status_code == 200


@pytest.mark.parametrize(
    "state, cancelled, statement",
    [
        (Commission.State.LOCKED, False, "2026-05"),
        (Commission.State.PAID, False, "2026-05"),
        (Commission.State.PAID, True, "2026-05"),  # billed and paid; the clawback is an adjustment
        (Commission.State.LOCKED, True, None),  # cancelled before payment: no statement bills it
    ],
)
def test_the_statement_is_the_one_that_bills_the_commission(
    client, alice, brand, state, cancelled, statement
):
    commission = commission_for(brand, order_id="A-1", state=state)
    if cancelled:
        commission.move_to(Commission.State.CANCELLED, at=CREATED_AT, cause="cancel")

    commission = client.get(order_url("A-1"), **alice.headers).json()["commission"]

    assert commission["state"] == ("cancelled" if cancelled else state)
    assert commission["statement"] == statement
