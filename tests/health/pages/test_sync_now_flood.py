"""Sync now cannot be flooded (docs/threat-model.md, "Round six", finding 5): one queued or running sync per shop,
held in the database (attribution.models.QueuedSync), so a repeated press answers that one is queued and queues
nothing; the task lets go of it once its sync has finished; and a brand's presses are rate-limited."""

from datetime import UTC, timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone
from django_q.models import OrmQ

from attribution.models import QueuedSync
from attribution.platforms.sync import orchestration, queued
from attribution.platforms.sync.runner import Synced
from brands.models import PlatformConnection

HISTORY = "/health/sync/"
NOW = "/health/sync/now/"


def connected(prop, domain="acme-sync.myshopify.com"):
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain=domain,
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        api_scopes="read_orders",
    )
    connection.set_credential("shpat_token")
    connection.save()
    return connection


@pytest.fixture
def shop(prop):
    return connected(prop)


def press(client, brand, connection):
    today = timezone.now().astimezone(UTC).date()
    return client.post(
        f"{NOW}?brand={brand.pk}", {"connection": connection.pk, "since": today, "until": today}
    )


def page(client) -> str:
    return client.get(HISTORY).content.decode()


def test_a_repeated_press_answers_that_one_is_queued_and_queues_nothing(alice_client, shop, brand):
    press(alice_client, brand, shop)

    for _ in range(3):
        assert press(alice_client, brand, shop).status_code == 302

    assert OrmQ.objects.count() == 1 and QueuedSync.objects.get().connection == shop
    assert "is queued already" in page(alice_client)


def test_the_database_holds_one_queued_sync_per_shop(shop):
    now = timezone.now()
    QueuedSync.objects.create(brand=shop.brand, connection=shop, window_start=now, window_end=now)

    with pytest.raises(IntegrityError):
        QueuedSync.objects.create(brand=shop.brand, connection=shop, window_start=now, window_end=now)


@pytest.mark.parametrize("unfinished, held", [(False, False), (True, True)])
def test_the_task_lets_go_of_the_shop_once_its_sync_has_finished(shop, monkeypatch, unfinished, held):
    now = timezone.now()
    queued.hold(shop, start=now - timedelta(days=1), end=now, now=now)
    monkeypatch.setattr(orchestration, "run_sync", lambda *a, **k: Synced(unfinished=unfinished))
    monkeypatch.setattr(orchestration, "describe_synced", lambda synced: "")

    orchestration.sync_shop(shop.pk, "manual")

    assert QueuedSync.objects.exists() == held  # an unfinished run is carried on by a task of its own


def test_a_failed_task_lets_go_of_the_shop(shop, monkeypatch):
    now = timezone.now()
    queued.hold(shop, start=now - timedelta(days=1), end=now, now=now)

    def fails(*args, **kwargs):
        raise RuntimeError("the platform broke")

    monkeypatch.setattr(orchestration, "run_sync", fails)

    with pytest.raises(RuntimeError):
        orchestration.sync_shop(shop.pk, "manual")
    assert not QueuedSync.objects.exists()


def test_a_queued_sync_whose_task_was_lost_no_longer_holds_the_shop(alice_client, shop, brand):
    long_ago = timezone.now() - timedelta(seconds=queued.STALE_SECONDS + 1)
    QueuedSync.objects.create(
        brand=brand, connection=shop, window_start=long_ago, window_end=long_ago, queued_at=long_ago
    )

    press(alice_client, brand, shop)

    assert OrmQ.objects.count() == 1 and QueuedSync.objects.get().queued_at > long_ago


def test_a_brands_presses_are_rate_limited(alice_client, shop, brand, prop, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "sync_now": "2/hour"}
    others = [connected(prop, f"acme-{n}.myshopify.com") for n in range(2)]
    for connection in (shop, *others[:1]):
        press(alice_client, brand, connection)

    press(alice_client, brand, others[1])

    assert OrmQ.objects.count() == 2 and QueuedSync.objects.count() == 2
    assert "Sync now was pressed 2 times within the hour" in page(alice_client)
