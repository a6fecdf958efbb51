"""Throttles: per client address and brand on order confirmation, per developer key on cancel, update and
read, per client address on refused authentication; counted where every worker sees the same count, and
recorded in the outcome log once per limit window."""

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache

from attribution.http import throttles
from health.log.models import OutcomeEvent
from tests.factories import issue_key

ORDER = "/api/order_confirmation"


@pytest.fixture
def tight_rates(settings):
    settings.API_THROTTLE_RATES = {
        "order_confirmation": "2/min",
        "developer_key": "2/min",
        "refused_authentication": "3/min",
    }


@pytest.fixture
def clock(monkeypatch):
    """The throttles' clock, moved by the test: clock.now += 60 starts the next window."""

    class Clock:
        now = 1_800_000_000.0  # the start of a minute

    monkeypatch.setattr(throttles, "clock", lambda: Clock.now)
    return Clock


def _order(prop, order_id):
    return {"orderAmount": 10, "orderId": order_id, "currency": "USD", "page_url": f"https://{prop.host}/"}


def test_order_confirmation_over_the_rate_answers_429_rate_limited_with_retry_after(
    api, prop, tight_rates, clock
):
    for n in range(2):
        assert api.post(ORDER, _order(prop, n)).status_code == 200

    clock.now += 15
    response = api.post(ORDER, _order(prop, 3))

    assert response.status_code == 429
    assert response.json() == {"success": False, "outcome": "rate_limited", "error": response.json()["error"]}
    assert int(response["Retry-After"]) == 46  # the window ends 45 s later; rounded up
    assert OutcomeEvent.objects.filter(outcome="rate_limited", http_status=429).count() == 1


def test_the_order_limit_is_per_client_address_and_brand(api, prop, other_prop, tight_rates, clock):
    for n in range(2):
        api.post(ORDER, _order(prop, n), REMOTE_ADDR="10.0.0.1")

    same_brand = api.post(ORDER, _order(prop, 9), REMOTE_ADDR="10.0.0.1")
    other_brand = api.post(ORDER, _order(other_prop, 9), REMOTE_ADDR="10.0.0.1")
    other_address = api.post(ORDER, _order(prop, 10), REMOTE_ADDR="10.0.0.2")

    assert same_brand.status_code == 429
    assert other_brand.status_code == 200
    assert other_address.status_code == 200


def test_the_limit_starts_again_with_the_next_window(api, prop, tight_rates, clock):
    for n in range(3):
        api.post(ORDER, _order(prop, n))

    clock.now += 60

    assert api.post(ORDER, _order(prop, 9)).status_code == 200


def test_a_brands_server_sending_a_flash_sale_from_one_address_is_never_refused(db):
    rate = django_settings.API_THROTTLE_RATES["order_confirmation"]
    start = 1_800_000_000.0

    answers = [
        throttles.hit("order_confirmation:203.0.113.9|1", rate=rate, now=start + n / 100)
        for n in range(100 * 60)  # 100 orders a second for a minute
    ]

    assert all(allowed for allowed, _, _ in answers)


def test_the_limit_is_shared_by_every_worker_without_a_shared_cache(api, prop, tight_rates, clock):
    for n in range(2):
        api.post(ORDER, _order(prop, n))

    cache.clear()  # another worker: its own memory, the same database

    assert api.post(ORDER, _order(prop, 9)).status_code == 429


def test_with_a_shared_cache_the_count_lives_there(api, prop, tight_rates, clock, settings):
    settings.THROTTLE_STORE = "cache"
    for n in range(2):
        api.post(ORDER, _order(prop, n))

    assert api.post(ORDER, _order(prop, 9)).status_code == 429


def test_a_flood_over_the_limit_is_recorded_once_per_window(api, prop, tight_rates, clock):
    answers = [api.post(ORDER, _order(prop, n)).status_code for n in range(12)]
    clock.now += 60
    answers += [api.post(ORDER, _order(prop, n)).status_code for n in range(12, 24)]

    assert answers == ([200] * 2 + [429] * 10) * 2
    assert OutcomeEvent.objects.filter(outcome="rate_limited").count() == 2
    assert OutcomeEvent.objects.count() == 2 * 2 + 2


def test_a_forged_forwarded_for_header_does_not_dodge_the_limit(api, prop, tight_rates, clock):
    for n in range(2):
        api.post(ORDER, _order(prop, n), HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")

    response = api.post(ORDER, _order(prop, 9), HTTP_X_FORWARDED_FOR="203.0.113.99")

    assert response.status_code == 429


def test_behind_the_load_balancer_the_limit_is_per_client_not_per_balancer(
    api, prop, tight_rates, clock, settings
):
    settings.NUM_PROXIES = 1
    balancer = {"REMOTE_ADDR": "10.0.0.1"}
    for n in range(2):
        api.post(ORDER, _order(prop, n), HTTP_X_FORWARDED_FOR="203.0.113.5", **balancer)

    other_client = api.post(ORDER, _order(prop, 8), HTTP_X_FORWARDED_FOR="198.51.100.7", **balancer)
    forged = api.post(ORDER, _order(prop, 9), HTTP_X_FORWARDED_FOR="198.51.100.99, 203.0.113.5", **balancer)

    assert other_client.status_code == 200
    assert forged.status_code == 429


def test_an_unreadable_body_counts_against_the_limit_and_is_answered_as_unreadable(
    api, prop, tight_rates, clock
):
    answers = [api.post(ORDER, "{not json").json()["outcome"] for _ in range(3)]

    assert answers == ["invalid_params", "invalid_params", "rate_limited"]


def test_cancel_is_limited_per_key_and_another_key_is_not_affected(
    api, brand, other_brand, tight_rates, clock
):
    _, alice = issue_key(brand)
    _, bob = issue_key(other_brand)
    for n in range(2):
        assert api.post("/api/Affiliates/cancel", {"order_id": n}, key=alice).status_code == 200

    assert api.post("/api/Affiliates/cancel", {"order_id": 9}, key=alice).status_code == 429
    update = {"order_id": 9, "new_order_amount": 1, "currency": "USD"}
    assert api.post("/api/Affiliates/update", update, key=alice).status_code == 429
    assert api.post("/api/Affiliates/cancel", {"order_id": 9}, key=bob).status_code == 200
    limited = OutcomeEvent.objects.get(endpoint="cancel", outcome="rate_limited")
    assert limited.brand_id == brand.id


def test_the_read_api_is_limited_per_key(api, brand, tight_rates, clock):
    _, alice = issue_key(brand)
    for _ in range(2):
        api.get("/api/Affiliates/orders/1", key=alice)

    response = api.get("/api/Affiliates/orders/1", key=alice)

    assert response.status_code == 429
    assert response.json()["outcome"] == "rate_limited"
    assert "Retry-After" in response


# --- refused authentication -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    ["", "Bearer abcd1234.not-a-real-key", "Basic dXNlcjpwdw==", "Bearer"],
    ids=["no key", "unknown key", "another scheme", "malformed"],
)
def test_refused_authentication_is_throttled_per_client_address(
    api, brand, tight_rates, clock, authorization
):
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}

    answers = [
        api.post("/api/Affiliates/cancel", {"order_id": n}, REMOTE_ADDR="198.51.100.7", **headers).status_code
        for n in range(6)
    ]
    elsewhere = api.post("/api/Affiliates/cancel", {"order_id": 9}, REMOTE_ADDR="192.0.2.1", **headers)

    assert answers == [401, 401, 401, 429, 429, 429]
    assert elsewhere.status_code == 401
    assert OutcomeEvent.objects.filter(http_status=401).count() == 4
    assert OutcomeEvent.objects.filter(outcome="rate_limited").count() == 1


def test_a_flood_with_a_revoked_key_cannot_fill_its_brands_log(api, brand, tight_rates, clock):
    key_obj, key = issue_key(brand)
    key_obj.revoke()

    for n in range(50):
        api.post("/api/Affiliates/update", {"order_id": n, "new_order_amount": 1, "currency": "USD"}, key=key)

    assert OutcomeEvent.objects.filter(brand=brand).count() == 3 + 1  # three refusals, one 429


def test_a_valid_key_from_an_address_refused_too_often_still_works(api, brand, tight_rates, clock):
    _, key = issue_key(brand)
    for n in range(5):
        api.post("/api/Affiliates/cancel", {"order_id": n}, key="abcd1234.wrong")

    response = api.post("/api/Affiliates/cancel", {"order_id": 1}, key=key)

    assert response.status_code == 200
    assert response.json()["outcome"] == "order_not_found"


def test_counters_idle_for_a_day_are_pruned(api, prop, tight_rates, clock):
    from attribution.models import RateCounter

    api.post(ORDER, _order(prop, 1), REMOTE_ADDR="10.0.0.1")
    clock.now += 86400 + 120
    api.post(ORDER, _order(prop, 2), REMOTE_ADDR="10.0.0.2")

    assert throttles.prune_counters(now=clock.now) == 1
    assert list(RateCounter.objects.values_list("key", flat=True)) == [
        f"order_confirmation:10.0.0.2|{prop.brand_id}"
    ]
