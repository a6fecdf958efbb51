"""POST /api/platforms/shopify: faults on our side are kept and answered 200, or answered 5xx when they could
not be kept."""

import json

from django.db import OperationalError
from django.utils import timezone

from attribution.durability import spool
from attribution.management.demo.standin.webhook_bodies import shopify_order
from attribution.models import Commission, Order, PlatformDelivery
from attribution.replay import REPLAYED, replay_all
from health.log.models import OutcomeEvent
from tests.attribution.platforms.conftest import SHOPIFY_SECRET
from tests.factories import ClickFactory
from tests.faults import failing_writes_to

# --- faults on our side: kept and answered 200, or answered 5xx when they could not be kept ------------


def _refuse(*args, **kwargs):
    raise OperationalError("server closed the connection unexpectedly")


def test_a_delivery_the_database_refuses_is_spooled_answered_200_and_replayed_once(
    shopify, shop, prop, creator, monkeypatch
):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        response = shopify("orders/create", shopify_order(note_attributes=[("sms_click_id", click.click_id)]))

    assert response.status_code == 200
    assert response.json()["outcome"] == "insert_failed"
    assert not Order.objects.exists()
    assert not PlatformDelivery.objects.exists()  # rolled back with the order: the replay takes the id
    [entry] = spool.pending()
    assert entry.event["delivery_id"] == "b54557e4-bdd9-4b37-8a5f-000000000001"
    assert "shopper@example.com" not in json.dumps(entry.document)
    assert "Harbour Road" not in entry.body

    assert replay_all().replayed == 1
    assert replay_all().replayed == 0
    order = Order.objects.get()
    assert (order.outcome, order.click, order.received_at) == ("tracked", click, entry.received_at)
    assert Commission.objects.count() == 1
    row = OutcomeEvent.objects.get()  # the insert_failed row, now with its real outcome
    assert (row.endpoint, row.outcome, row.answered_outcome) == ("shopify", "tracked", "insert_failed")
    assert REPLAYED in row.warnings


def test_a_redelivery_of_a_spooled_delivery_counts_once(shopify, shop, monkeypatch):
    with failing_writes_to("attribution_order"):
        shopify("orders/create", shopify_order(), x_shopify_webhook_id="kept-then-retried")
    replay_all()

    again = shopify("orders/create", shopify_order(), x_shopify_webhook_id="kept-then-retried")

    assert again.json()["outcome"] == "redelivery"
    assert Order.objects.count() == 1


def test_a_delivery_that_could_not_be_kept_is_answered_503_for_the_platform_to_retry(
    shopify, shop, monkeypatch
):
    monkeypatch.setattr(
        "attribution.durability.spool._write", lambda document: (_ for _ in ()).throw(OSError("disk full"))
    )

    with failing_writes_to("attribution_order"):
        response = shopify("orders/create", shopify_order())

    assert response.status_code == 503
    assert response.json()["success"] is False
    assert not Order.objects.exists()


def test_a_delivery_that_cannot_be_verified_with_the_database_away_is_503(shopify, shop, monkeypatch):
    monkeypatch.setattr("brands.resolution.connection_of_shop", _refuse)

    response = shopify("orders/create", shopify_order())

    assert response.status_code == 503
    assert response.json() == {
        "success": False,
        "outcome": "insert_failed",
        "error": "The delivery could not be verified or kept on our side; the platform sends it again. "
        "Nothing to change.",
    }


def test_a_replaced_secret_no_key_opens_any_more_does_not_stop_the_current_one(shopify, shop, settings):
    """The keys changed after a rotation: the current secret was sealed again, the replaced one cannot be read."""
    from cryptography.fernet import Fernet

    settings.PLATFORM_SECRET_KEYS = [Fernet.generate_key().decode()]
    shop.secret = ""
    shop.set_secret(SHOPIFY_SECRET)
    shop.previous_secret = "gAAAAAsealed-under-a-key-long-gone"
    shop.secret_replaced_at = timezone.now()
    shop.save()

    response = shopify("orders/create", shopify_order())

    assert response.json()["outcome"] == "no_attribution"
