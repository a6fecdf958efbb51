"""What the order confirmation tests share (test_confirmation_*.py): the brand is Acme (10 %) with the property
shop.acme.example; Ana is its active creator. A valid order, its answer's envelope and the outcome records."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.models import Click
from health.log.models import OutcomeEvent
from tests.factories import (
    ClickFactory,
    CreatorFactory,
)

URL = "/api/order_confirmation"
PAGE = "https://shop.acme.example/checkout/thank-you"
SECONDARY_PAGE = "https://eu.acme.example/thank-you"
UNREGISTERED_PAGE = "https://outlet.acme.example/thank-you"
OTHER_BRAND_PAGE = "https://globex.example/thank-you"
UNKNOWN_CLICK = "clk_00000000000000000000000000000000"
ABSENT = object()


def order(**fields):
    """A valid live order of 59.90 USD from shop.acme.example; a field set to ABSENT is left out."""
    body = {"orderId": "A-1001", "orderAmount": 59.90, "currency": "USD", "page_url": PAGE}
    for name, value in fields.items():
        if value is ABSENT:
            body.pop(name, None)
        else:
            body[name] = value
    return body


def with_raw_amount(token: str) -> str:
    """The valid order as JSON text with orderAmount written as `token`, which json.dumps cannot write."""
    return json.dumps(order(orderAmount="<amount>")).replace('"<amount>"', token)


@pytest.fixture
def confirm(api):
    def post(body, **extra):
        return api.post(URL, body, **extra)

    return post


def answer(response, status: int, outcome: str) -> dict:
    """The response envelope: JSON, success follows the status, a non-empty message or error."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["outcome"] == outcome
    assert body["success"] is (status < 400)
    text = body["message" if status < 400 else "error"]
    assert isinstance(text, str) and text
    return body


def events() -> list[tuple]:
    """The outcome records written, oldest first: (outcome, http_status, brand id, order id, is_test)."""
    return list(
        OutcomeEvent.objects.filter(endpoint="order_confirmation")
        .order_by("id")
        .values_list("outcome", "http_status", "brand_id", "order_id", "is_test")
    )


def click_on(prop, *, creator=None, ago=timedelta(hours=1)) -> Click:
    return ClickFactory(
        property=prop,
        creator=creator or CreatorFactory(brand=prop.brand),
        clicked_at=timezone.now() - ago,
    )
