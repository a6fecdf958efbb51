"""POST /api/Affiliates/cancel: who may cancel an order (the brand's own key, another brand's, none; the
Authorization header; the domain of the key's brand) and the test namespace (docs/api.md, "Cancel";
docs/decisions.md)."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.models import Commission
from brands.models import DeveloperKey
from health.log.models import OutcomeEvent
from tests.attribution.keyed import (
    CANCEL,
    assert_key_nowhere_in_the_logs,
    assert_key_nowhere_in_the_outcome_log,
    caller_of,
    commission_for,
    fresh,
    the_one_event,
)

PENDING, CANCELLED = Commission.State.PENDING, Commission.State.CANCELLED


def test_it_answers_another_brands_order_exactly_like_an_unknown_order(client, alice, bob, brand):
    before = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **bob.headers)
    commission = commission_for(brand, order_id="A-1")
    OutcomeEvent.objects.all().delete()

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **bob.headers)

    assert response.status_code == before.status_code == 200
    assert response.json() == before.json()
    assert response.json() == {
        "success": True,
        "outcome": "order_not_found",
        "message": "No commission for live order A-1 (usually the order was not attributed).",
    }
    assert fresh(commission).state == PENDING
    assert fresh(commission).cancelled_at is None
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix) == (
        "order_not_found",
        bob.brand.id,
        bob.key.prefix,
    )


def test_it_refuses_a_call_without_a_key(client, commission):
    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json() == {
        "success": False,
        "outcome": "unauthorized",
        "error": "Authorization header missing. Fix: send 'Authorization: Bearer <developer key>'.",
    }
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix, event.order_id) == (
        "unauthorized",
        None,
        "",
        "A-1",
    )


# What each header looks like, and the RFC 6750 challenge it gets: no Bearer credentials at all get
# the bare challenge, a broken Bearer header error="invalid_request".
BARE = 'Bearer realm="api"'


BROKEN = 'Bearer realm="api", error="invalid_request"'


MALFORMED = {
    "another scheme": (lambda key: f"Token {key}", BARE),
    "basic scheme": (lambda key: f"Basic {key}", BARE),
    "the scheme alone": (lambda key: "Bearer", BROKEN),
    "the scheme and a space": (lambda key: "Bearer ", BROKEN),
    "two spaces": (lambda key: f"Bearer  {key}", BROKEN),
    "a tab": (lambda key: f"Bearer\t{key}", BARE),  # "Bearer\t<key>" is one word, not the scheme
    "a second word": (lambda key: f"Bearer {key} extra", BROKEN),
    "the key alone": (lambda key: key, BARE),
    "an empty header": (lambda key: "", BARE),
}


@pytest.mark.parametrize("header, challenge", MALFORMED.values(), ids=MALFORMED.keys())
def test_it_answers_unauthorized_to_a_malformed_authorization_header(
    client, alice, commission, header, challenge
):
    response = client.post(
        CANCEL,
        {"order_id": "A-1"},
        content_type="application/json",
        HTTP_AUTHORIZATION=header(alice.plaintext),
    )

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == challenge
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "unauthorized"
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix) == ("unauthorized", None, "")


def test_it_answers_unauthorized_to_an_unknown_key(client, commission):
    response = client.post(
        CANCEL,
        {"order_id": "A-1"},
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer Zz9Zz9Zz.0123456789abcdef0123456789abcdef",
    )

    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "outcome": "unauthorized",
        "error": "The developer key is unknown or revoked. Fix: send a current key from your account manager.",
    }
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix) == ("unauthorized", None, "")


def test_it_answers_unauthorized_to_a_known_prefix_with_a_wrong_secret(client, alice, commission):
    response = client.post(
        CANCEL,
        {"order_id": "A-1"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {alice.key.prefix}.not-the-secret",
    )

    assert response.status_code == 401
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    # The refusal shows in the key's brand's health view, by prefix only.
    assert (event.outcome, event.brand_id, event.key_prefix) == (
        "unauthorized",
        alice.brand.id,
        alice.key.prefix,
    )


def test_it_answers_unauthorized_to_a_revoked_key(client, alice, commission):
    alice.key.revoke()

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api", error="invalid_token"'
    assert response.json()["error"].startswith("The developer key is unknown or revoked.")
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.key_prefix) == (
        "unauthorized",
        alice.brand.id,
        alice.key.prefix,
    )


def test_it_answers_unauthorized_to_an_expired_key(client, alice, commission):
    DeveloperKey.objects.filter(pk=alice.key.pk).update(expiry_date=timezone.now() - timedelta(days=1))

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 401
    assert response.json()["error"].startswith("The developer key has expired.")
    assert fresh(commission).state == PENDING
    assert the_one_event(response, endpoint="cancel").outcome == "unauthorized"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_it_reads_the_bearer_scheme_case_insensitively(client, alice, commission, scheme):
    response = client.post(
        CANCEL,
        {"order_id": "A-1"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"{scheme} {alice.plaintext}",
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert the_one_event(response, endpoint="cancel").key_prefix == alice.key.prefix


def test_it_accepts_any_of_a_brands_current_keys(client, alice, brand, commission):
    second = caller_of(brand, "alice's rotation")

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **second.headers)

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert the_one_event(response, endpoint="cancel").key_prefix == second.key.prefix


def test_it_notes_when_the_key_was_last_used(client, alice, commission):
    assert alice.key.last_used_at is None

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    event = the_one_event(response, endpoint="cancel")
    assert DeveloperKey.objects.get(pk=alice.key.pk).last_used_at >= event.received_at


def test_it_keeps_the_key_out_of_the_outcome_log_and_the_logs(client, alice, caplog, commission):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="django.request")
    alice.key.revoke()
    still_valid = caller_of(alice.brand, "alice's second")

    client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **still_valid.headers)
    client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)
    client.post(CANCEL, "not json", content_type="application/json", **still_valid.headers)

    assert list(OutcomeEvent.objects.order_by("id").values_list("outcome", flat=True)) == [
        "tracked",
        "unauthorized",
        "invalid_params",
    ]
    for plaintext in (still_valid.plaintext, alice.plaintext):
        assert_key_nowhere_in_the_outcome_log(plaintext)
        assert_key_nowhere_in_the_logs(caplog, plaintext)


@pytest.mark.parametrize("domain", ["shop.acme.example", "https://WWW.Shop.Acme.Example/thanks", ""])
def test_it_accepts_a_domain_of_the_keys_own_brand(client, alice, commission, domain):
    response = client.post(
        CANCEL, {"order_id": "A-1", "domain": domain}, content_type="application/json", **alice.headers
    )

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert the_one_event(response, endpoint="cancel").outcome == "tracked"


@pytest.mark.parametrize(
    "domain",
    ["globex.example", "nobody.example", "blog.acme.example", 42],
    ids=["another brand's", "unknown", "unregistered host under the brand's domain", "not a string"],
)
def test_it_answers_unresolved_domain_for_a_domain_not_of_the_keys_brand(
    client, alice, other_prop, commission, domain
):
    response = client.post(
        CANCEL, {"order_id": "A-1", "domain": domain}, content_type="application/json", **alice.headers
    )

    assert response.status_code == 400
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "unresolved_domain"
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.brand_id, event.order_id) == ("unresolved_domain", alice.brand.id, "A-1")


def test_it_answers_unresolved_domain_when_the_keys_brand_is_inactive(client, alice, brand, commission):
    brand.is_active = False
    brand.save()

    response = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "outcome": "unresolved_domain",
        "error": "The brand of this developer key is inactive. Fix: contact your account manager.",
    }
    assert fresh(commission).state == PENDING
    assert the_one_event(response, endpoint="cancel").brand_id == brand.id


@pytest.mark.parametrize("flag", [True, "true", "TRUE"])
def test_a_test_cancel_acts_on_the_test_order_only(client, alice, brand, commission, flag):
    test_commission = commission_for(brand, order_id="A-1", is_test=True)

    response = client.post(
        CANCEL, {"order_id": "A-1", "test": flag}, content_type="application/json", **alice.headers
    )

    assert response.json()["outcome"] == "tracked"
    assert fresh(test_commission).state == CANCELLED
    assert fresh(commission).state == PENDING
    assert the_one_event(response, endpoint="cancel").is_test is True


@pytest.mark.parametrize("flag", [None, False, "false"])
def test_a_live_cancel_acts_on_the_live_order_only(client, alice, brand, commission, flag):
    test_commission = commission_for(brand, order_id="A-1", is_test=True)
    body = {"order_id": "A-1"} if flag is None else {"order_id": "A-1", "test": flag}

    response = client.post(CANCEL, body, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "tracked"
    assert fresh(commission).state == CANCELLED
    assert fresh(test_commission).state == PENDING
    assert the_one_event(response, endpoint="cancel").is_test is False


def test_a_test_cancel_does_not_find_a_live_order(client, alice, commission):
    response = client.post(
        CANCEL, {"order_id": "A-1", "test": True}, content_type="application/json", **alice.headers
    )

    assert response.status_code == 200
    assert (
        response.json()["message"]
        == "No commission for test order A-1 (usually the order was not attributed)."
    )
    assert response.json()["outcome"] == "order_not_found"
    assert fresh(commission).state == PENDING
    event = the_one_event(response, endpoint="cancel")
    assert (event.outcome, event.is_test) == ("order_not_found", True)


def test_a_live_cancel_does_not_find_a_test_order(client, alice, brand):
    test_commission = commission_for(brand, order_id="T-1", is_test=True)

    response = client.post(CANCEL, {"order_id": "T-1"}, content_type="application/json", **alice.headers)

    assert response.json()["outcome"] == "order_not_found"
    assert fresh(test_commission).state == PENDING
    assert the_one_event(response, endpoint="cancel").is_test is False
