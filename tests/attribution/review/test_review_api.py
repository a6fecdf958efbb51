"""POST /api/Affiliates/review (docs/api.md, docs/review.md): each answer, what it did to the commission and
its holds, and the request's one outcome row on the `review` endpoint."""

import pytest
from django.db import DatabaseError

from attribution.models import Commission, CommissionHold, CommissionStateChange
from health.log.models import OutcomeEvent
from tests.attribution.keyed import caller_of, fresh, order_url, the_one_event
from tests.attribution.review.helpers import held_commission
from tests.faults import failing_writes_to

pytestmark = pytest.mark.django_db

URL = "/api/Affiliates/review"
State = Commission.State


@pytest.fixture
def alice(brand):
    return caller_of(brand, "alice")


@pytest.fixture
def bob(other_brand):
    return caller_of(other_brand, "bob")


def review(client, caller, body):
    headers = caller.headers if caller is not None else {}
    return client.post(URL, body, content_type="application/json", **headers)


def test_a_release_makes_the_commission_pending_and_resolves_its_holds(client, brand, alice):
    held = held_commission(brand, "A-1")

    response = review(
        client, alice, {"order_id": "A-1", "decision": "release", "note": "Her sister's order."}
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "released"
    assert fresh(held).state == State.PENDING
    hold = CommissionHold.objects.get(commission=held)
    assert (hold.decision, hold.note, hold.via) == ("released", "Her sister's order.", "api")
    assert hold.request_id == response["X-Request-ID"]
    move = CommissionStateChange.objects.get(commission=held)
    assert (move.cause, move.request_id) == ("review_release", response["X-Request-ID"])
    assert the_one_event(response, endpoint="review").outcome == "released"


def test_a_reject_cancels_the_commission(client, brand, alice):
    held = held_commission(brand, "A-1")

    response = review(client, alice, {"order_id": "A-1", "decision": " REJECT "})

    assert (response.status_code, response.json()["outcome"]) == (200, "rejected")
    assert fresh(held).state == State.CANCELLED
    assert CommissionHold.objects.get(commission=held).decision == "rejected"
    assert the_one_event(response, endpoint="review").outcome == "rejected"


def test_a_commission_that_is_not_held_is_not_held_a_success(client, brand, alice):
    held = held_commission(brand, "A-1")
    review(client, alice, {"order_id": "A-1", "decision": "release"})
    OutcomeEvent.objects.all().delete()

    response = review(client, alice, {"order_id": "A-1", "decision": "reject"})

    body = response.json()
    assert (response.status_code, body["success"], body["outcome"]) == (200, True, "not_held")
    assert fresh(held).state == State.PENDING
    assert the_one_event(response, endpoint="review").outcome == "not_held"


def test_an_unknown_order_is_order_not_found(client, brand, alice):
    response = review(client, alice, {"order_id": "NOPE", "decision": "release"})

    assert (response.status_code, response.json()["outcome"]) == (200, "order_not_found")
    assert the_one_event(response, endpoint="review").outcome == "order_not_found"


def test_another_brands_key_finds_nothing_and_changes_nothing(client, brand, bob):
    held = held_commission(brand, "A-1")

    response = review(client, bob, {"order_id": "A-1", "decision": "reject"})

    assert response.json()["outcome"] == "order_not_found"
    assert fresh(held).state == State.HELD
    assert CommissionHold.objects.get(commission=held).decision == ""


@pytest.mark.parametrize("decision", ["approve", "", None, 1, ["release"]])
def test_a_bad_decision_is_invalid_params(client, brand, alice, decision):
    held = held_commission(brand, "A-1")

    response = review(client, alice, {"order_id": "A-1", "decision": decision})

    body = response.json()
    assert (response.status_code, body["success"], body["outcome"]) == (400, False, "invalid_params")
    assert "decision" in body["error"] and "Fix:" in body["error"]
    assert fresh(held).state == State.HELD
    assert the_one_event(response, endpoint="review").outcome == "invalid_params"


def test_without_a_key_it_is_unauthorized_and_recorded(client, brand):
    held = held_commission(brand, "A-1")

    response = review(client, None, {"order_id": "A-1", "decision": "release"})

    assert (response.status_code, response.json()["outcome"]) == (401, "unauthorized")
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert fresh(held).state == State.HELD
    assert the_one_event(response, endpoint="review").outcome == "unauthorized"


def test_a_review_that_fails_on_our_side_decides_nothing_and_is_not_kept_for_replay(
    client, brand, alice, _spool_in_tmp
):
    held = held_commission(brand, "A-1")

    with failing_writes_to("attribution_commissionstatechange", DatabaseError):
        response = review(client, alice, {"order_id": "A-1", "decision": "release"})

    body = response.json()
    assert (response.status_code, body["success"], body["outcome"]) == (200, True, "handler_error")
    assert "send the same review again" in body["message"]
    assert fresh(held).state == State.HELD
    assert the_one_event(response, endpoint="review").outcome == "handler_error"
    # Nothing was decided and the brand sends it again: the spool keeps nothing to replay.
    assert not _spool_in_tmp.exists() or not any(_spool_in_tmp.rglob("*.json"))


def test_the_read_api_shows_the_holds_and_their_resolution(client, brand, alice):
    held_commission(brand, "A-1", detail="the shopper's email is Ana's own (hashed match)")
    # The read API reads holds when the order's trace says a rule held it, as the decision writes it.
    order = Commission.objects.get().order
    order.trace = [{"signal": "review", "result": "self_referral", "detail": "…"}]
    order.save(update_fields=["trace"])

    waiting = client.get(order_url("A-1"), **alice.headers).json()["commission"]
    review(client, alice, {"order_id": "A-1", "decision": "release", "note": "checked"})
    decided = client.get(order_url("A-1"), **alice.headers).json()["commission"]

    assert waiting["state"] == "held"
    [hold] = waiting["holds"]
    assert (hold["rule"], hold["detail"], hold["resolution"]) == (
        "self_referral",
        "the shopper's email is Ana's own (hashed match)",
        None,
    )
    assert decided["state"] == "pending"
    assert decided["holds"][0]["resolution"]["decision"] == "released"
    assert decided["holds"][0]["resolution"]["note"] == "checked"
    assert [m["to"] for m in decided["state_changes"]] == ["pending"]
