"""Throttles: per client IP on order confirmation, per developer key on cancel, update and read."""

import pytest

from health.models import OutcomeEvent
from tests.factories import issue_key


@pytest.fixture
def tight_rates(settings):
    settings.API_THROTTLE_RATES = {"order_confirmation": "2/min", "developer_key": "2/min"}


def _order(prop, order_id):
    return {"orderAmount": 10, "orderId": order_id, "currency": "USD", "page_url": f"https://{prop.host}/"}


def test_order_confirmation_over_the_rate_answers_429_rate_limited_with_retry_after(api, prop, tight_rates):
    for n in range(2):
        assert api.post("/api/order_confirmation", _order(prop, n)).status_code == 200

    response = api.post("/api/order_confirmation", _order(prop, 3))

    assert response.status_code == 429
    assert response.json() == {
        "success": False,
        "outcome": "rate_limited",
        "error": response.json()["error"],
    }
    assert int(response["Retry-After"]) >= 1
    assert OutcomeEvent.objects.filter(outcome="rate_limited", http_status=429).count() == 1


def test_the_order_limit_is_per_client_ip(api, prop, tight_rates):
    for n in range(2):
        api.post("/api/order_confirmation", _order(prop, n), REMOTE_ADDR="10.0.0.1")

    response = api.post("/api/order_confirmation", _order(prop, 9), REMOTE_ADDR="10.0.0.2")

    assert response.status_code == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_limit(api, prop, tight_rates):
    for n in range(2):
        api.post("/api/order_confirmation", _order(prop, n), HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")

    response = api.post("/api/order_confirmation", _order(prop, 9), HTTP_X_FORWARDED_FOR="203.0.113.99")

    assert response.status_code == 429


def test_cancel_is_limited_per_key_and_another_key_is_not_affected(api, brand, other_brand, tight_rates):
    _, alice = issue_key(brand)
    _, bob = issue_key(other_brand)
    for n in range(2):
        assert api.post("/api/Affiliates/cancel", {"order_id": n}, key=alice).status_code == 200

    assert api.post("/api/Affiliates/cancel", {"order_id": 9}, key=alice).status_code == 429
    assert (
        api.post(
            "/api/Affiliates/update", {"order_id": 9, "new_order_amount": 1, "currency": "USD"}, key=alice
        ).status_code
        == 429
    )
    assert api.post("/api/Affiliates/cancel", {"order_id": 9}, key=bob).status_code == 200
    limited = OutcomeEvent.objects.get(endpoint="cancel", outcome="rate_limited")
    assert limited.brand_id == brand.id


def test_the_read_api_is_limited_per_key(api, brand, tight_rates):
    _, alice = issue_key(brand)
    for _ in range(2):
        api.get("/api/Affiliates/orders/1", key=alice)

    response = api.get("/api/Affiliates/orders/1", key=alice)

    assert response.status_code == 429
    assert response.json()["outcome"] == "rate_limited"
    assert "Retry-After" in response


def test_behind_the_load_balancer_the_limit_is_per_client_not_per_balancer(api, prop, tight_rates, settings):
    settings.NUM_PROXIES = 1
    balancer = {"REMOTE_ADDR": "10.0.0.1"}
    for n in range(2):
        api.post("/api/order_confirmation", _order(prop, n), HTTP_X_FORWARDED_FOR="203.0.113.5", **balancer)

    other_client = api.post(
        "/api/order_confirmation", _order(prop, 8), HTTP_X_FORWARDED_FOR="198.51.100.7", **balancer
    )
    forged = api.post(
        "/api/order_confirmation",
        _order(prop, 9),
        HTTP_X_FORWARDED_FOR="198.51.100.99, 203.0.113.5",
        **balancer,
    )

    assert other_client.status_code == 200
    assert forged.status_code == 429
