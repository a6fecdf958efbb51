"""The overview's "Last cancellation" and "Last amount update" cards count what a storefront platform changed
(orders/cancelled, a refund, an edit of the order's amount) as they count the event API's cancels and
updates: a webhook-only brand sees its cancels and amount changes there too."""

import pytest

from attribution.management.demo.standin.webhook_bodies import shopify_order
from attribution.models import Commission
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import caller_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def tracked(shopify, shop, prop, creator):
    click = factories.ClickFactory(property=prop, creator=creator)
    assert (
        shopify("orders/create", shopify_order(note_attributes=[("sms_click_id", click.click_id)])).json()[
            "outcome"
        ]
        == "tracked"
    )
    return Commission.objects.get()


@pytest.fixture
def overview(client, brand):
    def status():
        client.force_login(factories.MembershipFactory(brand=brand, user__username="alice").user)
        return client.get("/health/").context["status"]

    return status


def test_a_platform_s_cancel_is_the_last_cancellation(shopify, tracked, overview):
    cancelled = shopify_order(cancelled_at="2026-11-25T09:00:00Z", updated_at="2026-11-25T09:00:00Z")
    assert shopify("orders/cancelled", cancelled).json()["outcome"] == "tracked"

    status = overview()

    event = OutcomeEvent.objects.get(endpoint="shopify_change")
    assert (status.last_cancel["id"], status.last_cancel["endpoint"]) == (event.pk, "shopify_change")
    assert status.last_update is None


def test_a_platform_s_refund_is_the_last_amount_update(shopify, tracked, overview):
    edited = shopify_order(current_subtotal="29.95", updated_at="2026-11-25T09:00:00Z")
    assert shopify("orders/updated", edited).json()["outcome"] == "tracked"

    status = overview()

    event = OutcomeEvent.objects.get(endpoint="shopify_change")
    assert status.last_update["id"] == event.pk
    assert status.last_cancel is None


def test_a_later_api_cancel_is_the_last_cancellation(api, shopify, tracked, overview, brand):
    cancelled = shopify_order(cancelled_at="2026-11-25T09:00:00Z", updated_at="2026-11-25T09:00:00Z")
    shopify("orders/cancelled", cancelled)
    key = caller_of(brand, "dev").plaintext
    api.post("/api/Affiliates/cancel", {"order_id": "NOT-HERE"}, key=key)

    status = overview()

    assert status.last_cancel["id"] == OutcomeEvent.objects.get(endpoint="cancel").pk
