"""The key handover's callback (/api/platforms/woocommerce/keys) cannot hold a web worker: its check of the keys
against the site is one attempt, all within one total deadline, each answer's body capped, and the callback is
rate-limited per address (docs/threat-model.md, "Round six", finding 2)."""

import json

import httpx
import pytest

from attribution.platforms.connect import site_check, woocommerce_keys
from brands.models import KeyHandover, PlatformConnection
from tests.outbound_double import Trickle
from tests.platform_standin import STANDIN_HOST

SLUG = "acme"
CALLBACK = "/api/platforms/woocommerce/keys"


@pytest.fixture
def site(standin):
    return standin.add_site(SLUG, name="Acme")


def post_keys(client, standin, prop):
    user_id = woocommerce_keys.start_handover(
        prop=prop, site_url=standin.site_url(SLUG), scope="read"
    ).handover_id
    key, secret, _ = standin.issue_keys(SLUG, "read")
    body = {"user_id": user_id, "consumer_key": key, "consumer_secret": secret, "key_permissions": "read"}
    return client.post(CALLBACK, json.dumps(body), content_type="application/json")


def test_a_site_slower_than_the_deadline_is_refused_after_one_call(
    client, prop, site, standin, outbound_double
):
    """The site answers its first call a piece every six seconds: the handover's ten seconds end within it."""
    served = outbound_double.handlers[STANDIN_HOST]

    def slow(request):
        answer = served.handle_request(request)
        return httpx.Response(
            answer.status_code,
            headers=answer.headers,
            stream=Trickle(outbound_double, [answer.read()[:10], b"", b""], 6.0),
        )

    outbound_double.serve(STANDIN_HOST, slow)

    answer = post_keys(client, standin, prop)

    assert answer.status_code == 400
    assert f"did not answer within {site_check.CHECK_SECONDS:g} s" in answer.json()["error"]
    assert KeyHandover.objects.get().credential == "" and PlatformConnection.objects.count() == 0


def test_an_answer_over_the_body_cap_is_refused(client, prop, site, standin, monkeypatch):
    monkeypatch.setattr(site_check, "BODY_LIMIT", 64)

    answer = post_keys(client, standin, prop)

    assert answer.status_code == 400 and "answer is over 0 KB" in answer.json()["error"]
    assert KeyHandover.objects.get().credential == ""


def test_a_failing_site_is_asked_once_not_retried(client, prop, site, standin):
    site.faults.fail_next = 5

    answer = post_keys(client, standin, prop)

    assert answer.status_code == 400 and "not retried" in answer.json()["error"]
    assert len(standin.calls) == 1


def test_the_callback_is_rate_limited_per_address(client, prop, site, standin, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "key_handovers": "2/min"}
    for _ in range(2):
        assert post_keys(client, standin, prop).status_code == 200
    calls = len(standin.calls)

    refused = post_keys(client, standin, prop)

    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["success"] is False
    assert len(standin.calls) == calls and KeyHandover.objects.filter(called_at__isnull=False).count() == 2


def test_every_answer_carries_its_outcome_as_every_api_answer_does(client, prop, site, standin, settings):
    """Issue 54 item 2: the key callback answers through the receiver's stages, in the /api/ envelope."""
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "key_handovers": "3/min"}
    answers = [
        post_keys(client, standin, prop),
        client.post(CALLBACK, b"not json", content_type="application/json"),
        client.get(CALLBACK),
        client.post(CALLBACK, json.dumps({"user_id": "42"}), content_type="application/json"),
        client.post(CALLBACK, b"{}", content_type="application/json"),
    ]

    assert [(a.status_code, a.json()["outcome"]) for a in answers] == [
        (200, "keys_received"),
        (400, "invalid_params"),
        (405, "method_not_allowed"),
        (400, "invalid_params"),
        (429, "rate_limited"),
    ]
