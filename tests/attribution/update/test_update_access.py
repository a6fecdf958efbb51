"""POST /api/Affiliates/update: who may update an order (the brand's own key, another brand's, none; the
Authorization header; the domain of the key's brand) and the test namespace (docs/api.md, "Update";
docs/decisions.md)."""

import logging
from decimal import Decimal

import pytest

from attribution.models import AmountChange
from health.log.models import OutcomeEvent
from tests.attribution.keyed import (
    UPDATE,
    assert_key_nowhere_in_the_logs,
    assert_key_nowhere_in_the_outcome_log,
    commission_for,
    fresh,
    the_one_event,
)
from tests.attribution.update.conftest import assert_unchanged, update


def test_it_answers_another_brands_order_exactly_like_an_unknown_order(client, bob, brand):
    body = {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"}
    before = update(client, bob, body)
    commission = commission_for(brand, order_id="A-1")
    OutcomeEvent.objects.all().delete()

    response = update(client, bob, body)

    assert response.status_code == before.status_code == 200
    assert (
        response.json()
        == before.json()
        == {
            "success": True,
            "outcome": "order_not_found",
            "message": "No commission for live order A-1 (usually the order was not attributed).",
        }
    )
    assert_unchanged(commission)
    event = the_one_event(response, endpoint="update")
    assert (event.outcome, event.brand_id, event.key_prefix) == (
        "order_not_found",
        bob.brand.id,
        bob.key.prefix,
    )


def test_it_refuses_a_call_without_a_key(client, commission):
    response = update(client, None, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"})

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "unauthorized"
    assert_unchanged(commission)
    event = the_one_event(response, endpoint="update")
    assert (event.outcome, event.brand_id, event.key_prefix) == ("unauthorized", None, "")


@pytest.mark.parametrize(
    "header, error",
    [
        ("Bearer Zz9Zz9Zz.0123456789abcdef0123456789abcdef", ', error="invalid_token"'),
        ("Token {key}", ""),
        ("Bearer", ', error="invalid_request"'),
        ("Bearer  {key}", ', error="invalid_request"'),
    ],
    ids=["unknown key", "another scheme", "no key", "two spaces"],
)
def test_it_answers_unauthorized_to_a_bad_authorization_header(client, alice, commission, header, error):
    response = client.post(
        UPDATE,
        {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"},
        content_type="application/json",
        HTTP_AUTHORIZATION=header.format(key=alice.plaintext),
    )

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"' + error
    assert response.json()["outcome"] == "unauthorized"
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "unauthorized"


def test_it_answers_unauthorized_to_a_revoked_key(client, alice, commission):
    alice.key.revoke()

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"})

    assert response.status_code == 401
    assert response.json()["outcome"] == "unauthorized"
    assert_unchanged(commission)
    event = the_one_event(response, endpoint="update")
    assert (event.brand_id, event.key_prefix) == (alice.brand.id, alice.key.prefix)


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_it_reads_the_bearer_scheme_case_insensitively(client, alice, commission, scheme):
    response = client.post(
        UPDATE,
        {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"{scheme} {alice.plaintext}",
    )

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).amount == Decimal("0.50")
    assert the_one_event(response, endpoint="update").key_prefix == alice.key.prefix


def test_it_keeps_the_key_out_of_the_outcome_log_and_the_logs(client, alice, caplog, commission):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="django.request")

    update(client, alice, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"})
    update(client, alice, {"order_id": "A-1", "new_order_amount": "$5", "currency": "USD"})
    alice.key.revoke()
    update(client, alice, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"})

    assert list(OutcomeEvent.objects.order_by("id").values_list("outcome", flat=True)) == [
        "tracked",
        "invalid_order_amount",
        "unauthorized",
    ]
    assert_key_nowhere_in_the_outcome_log(alice.plaintext)
    assert_key_nowhere_in_the_logs(caplog, alice.plaintext)
    assert AmountChange.objects.get().request_id == OutcomeEvent.objects.order_by("id")[0].request_id


def test_it_accepts_a_domain_of_the_keys_own_brand(client, alice, commission):
    response = update(
        client,
        alice,
        {"order_id": "A-1", "new_order_amount": "5", "currency": "USD", "domain": "shop.acme.example"},
    )

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).amount == Decimal("0.50")
    assert the_one_event(response, endpoint="update").outcome == "tracked"


@pytest.mark.parametrize("domain", ["globex.example", "nobody.example"], ids=["another brand's", "unknown"])
def test_it_answers_unresolved_domain_for_a_domain_not_of_the_keys_brand(
    client, alice, other_prop, commission, domain
):
    response = update(
        client, alice, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD", "domain": domain}
    )

    assert response.status_code == 400
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "unresolved_domain"
    assert_unchanged(commission)
    event = the_one_event(response, endpoint="update")
    assert (event.outcome, event.brand_id) == ("unresolved_domain", alice.brand.id)


def test_it_answers_unresolved_domain_when_the_keys_brand_is_inactive(client, alice, brand, commission):
    brand.is_active = False
    brand.save()

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "5", "currency": "USD"})

    assert response.status_code == 400
    assert response.json()["outcome"] == "unresolved_domain"
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").outcome == "unresolved_domain"


def test_a_test_update_acts_on_the_test_order_only(client, alice, brand, commission):
    test_commission = commission_for(brand, order_id="A-1", is_test=True)

    response = update(
        client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD", "test": True}
    )

    assert response.json()["outcome"] == "tracked"
    assert fresh(test_commission).amount == Decimal("2.00")
    assert fresh(commission).amount == Decimal("10.00")
    assert AmountChange.objects.get().commission_id == test_commission.pk
    assert the_one_event(response, endpoint="update").is_test is True


def test_a_live_update_acts_on_the_live_order_only(client, alice, brand, commission):
    test_commission = commission_for(brand, order_id="A-1", is_test=True)

    response = update(client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD"})

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).amount == Decimal("2.00")
    assert fresh(test_commission).amount == Decimal("10.00")
    assert the_one_event(response, endpoint="update").is_test is False


def test_a_test_update_does_not_find_a_live_order(client, alice, commission):
    response = update(
        client, alice, {"order_id": "A-1", "new_order_amount": "20", "currency": "USD", "test": "true"}
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "order_not_found"
    assert_unchanged(commission)
    assert the_one_event(response, endpoint="update").is_test is True
