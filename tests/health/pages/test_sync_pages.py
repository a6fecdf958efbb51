"""The sync's pages: the sync history (runs, windows, orders read, recovered, followed, errors) linked from the
setup page, one run's recovered orders, Sync now for a date range (at most 60 days back for a Shopify shop
without read_all_orders), and the overview's capture per day and path. Alice sees Acme's; Bob, of Globex, and
an anonymous visitor do not."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from attribution.models import DailyCapture, SyncedOrder, SyncRun
from attribution.platforms.sync import orchestration
from brands.models import PlatformConnection

HISTORY = "/health/sync/"
NOW = "/health/sync/now/"


@pytest.fixture
def shop(prop):
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain="acme-sync.myshopify.com",
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        api_scopes="read_orders",
    )
    connection.set_credential("shpat_token")
    connection.save()
    return connection


@pytest.fixture
def run(shop):
    end = timezone.now() - timedelta(hours=2)
    run = SyncRun.objects.create(
        brand=shop.brand,
        connection=shop,
        trigger="nightly",
        window_start=end - timedelta(days=1),
        window_end=end,
        status="done",
        finished_at=end + timedelta(minutes=3),
        pages=2,
        orders_read=212,
        recovered=3,
        followed=1,
        unchanged=208,
        errors=[
            {
                "at": end.isoformat(),
                "kind": "order",
                "text": "Order 9 was not recorded (invalid_order_amount)",
            }
        ],
    )
    for n in (1, 2, 3):
        SyncedOrder.objects.create(
            brand=shop.brand,
            connection=shop,
            run=run,
            order_id=f"45078900{n}",
            path="sync",
            day=end.date(),
            outcome="tracked",
        )
    return run


def test_the_history_shows_each_run_with_its_figures(alice_client, run, brand):
    page = alice_client.get(HISTORY, {"brand": brand.pk})

    assert page.status_code == 200
    text = page.content.decode()
    assert f'href="/health/sync/{run.pk}/?brand={brand.pk}"' in text
    assert "acme-sync.myshopify.com" in text and ">212<" in text and ">3<" in text
    assert "Order 9 was not recorded" in text
    assert 'id="sync-now"' in text  # the shop can be synced


def test_a_run_lists_the_orders_no_webhook_delivered(alice_client, run, brand):
    page = alice_client.get(f"/health/sync/{run.pk}/", {"brand": brand.pk})

    assert page.status_code == 200
    text = page.content.decode()
    for n in (1, 2, 3):
        assert f"/health/orders/45078900{n}?brand={brand.pk}" in text
    assert "212 in 2 pages: 3 recovered, 1 followed" in text


def test_another_brand_s_user_and_an_anonymous_visitor_see_nothing(client, bob, run):
    assert client.get(f"/health/sync/{run.pk}/").status_code == 302  # to sign in
    assert client.post(NOW, {}).status_code == 302
    client.force_login(bob)
    assert client.get(f"/health/sync/{run.pk}/").status_code == 404
    assert "acme-sync" not in client.get(HISTORY).content.decode()
    since = timezone.now().date() - timedelta(days=2)
    client.post(NOW, {"connection": run.connection_id, "since": since, "until": since})
    assert not OrmQ.objects.exists()


def test_sync_now_queues_the_shop_s_sync_for_the_window(alice_client, shop, brand):
    today = timezone.now().astimezone(UTC).date()
    since = today - timedelta(days=3)

    answer = alice_client.post(
        f"{NOW}?brand={brand.pk}", {"connection": shop.pk, "since": since, "until": today - timedelta(days=1)}
    )

    assert answer.status_code == 302 and answer["Location"] == f"{HISTORY}?brand={brand.pk}"
    task = OrmQ.objects.get()
    assert task.func() == orchestration.TASK
    connection_id, trigger, start, end = task.args()
    assert (connection_id, trigger) == (shop.pk, "manual")
    assert (start[:10], end[:10]) == (since.isoformat(), today.isoformat())
    assert "is queued" in alice_client.get(HISTORY).content.decode()


@pytest.mark.parametrize("runner", ["", "sync"])
def test_sync_now_queues_where_the_nightly_does(settings, runner, alice_client, shop, brand):
    """On the sync's own runner when SYNC_TASK_CLUSTER names one (django-q2 keeps a task's queue as its key)."""
    settings.SYNC_TASK_CLUSTER = runner
    today = timezone.now().astimezone(UTC).date()

    alice_client.post(f"{NOW}?brand={brand.pk}", {"connection": shop.pk, "since": today, "until": today})

    task = OrmQ.objects.get()
    assert (task.key, task.func()) == (runner or Conf.CLUSTER_NAME, orchestration.TASK)


@pytest.mark.parametrize(
    "days_back, scopes, queued",
    [(59, "read_orders", True), (60, "read_orders", False), (200, "read_orders,read_all_orders", True)],
)
def test_sync_now_reaches_60_days_back_on_shopify_without_read_all_orders(
    alice_client, shop, brand, days_back, scopes, queued
):
    shop.api_scopes = scopes
    shop.save()
    today = timezone.now().astimezone(UTC).date()

    alice_client.post(
        NOW, {"connection": shop.pk, "since": today - timedelta(days=days_back), "until": today}
    )

    assert OrmQ.objects.exists() == queued
    if not queued:
        assert "read_all_orders" in alice_client.get(HISTORY).content.decode()


def test_sync_now_refuses_a_shop_without_a_credential_and_a_window_backwards(alice_client, shop, brand):
    today = timezone.now().astimezone(UTC).date()
    alice_client.post(NOW, {"connection": shop.pk, "since": today, "until": today - timedelta(days=1)})
    assert "ends before it starts" in alice_client.get(HISTORY).content.decode()
    PlatformConnection.objects.filter(pk=shop.pk).update(credential="")
    alice_client.post(NOW, {"connection": shop.pk, "since": today, "until": today})
    assert not OrmQ.objects.exists()


def test_the_setup_page_offers_sync_now_and_links_the_history(alice_client, shop, brand):
    text = alice_client.get("/health/setup/", {"brand": brand.pk}).content.decode()

    assert f'href="/health/sync/?brand={brand.pk}" id="sync-history-link"' in text
    assert 'id="sync-now"' in text


def test_the_sync_now_form_opens_on_the_last_three_days_within_its_limits(alice_client, shop, brand):
    today = timezone.now().astimezone(UTC).date()
    first, oldest = today - timedelta(days=2), today - timedelta(days=365)

    text = alice_client.get("/health/sync/", {"brand": brand.pk}).content.decode()

    for name, value in (("since", first), ("until", today)):
        field = text[text.index(f'name="{name}"') - 60 :][:300]
        assert f'value="{value.isoformat()}"' in field
        assert f'min="{oldest.isoformat()}"' in field and f'max="{today.isoformat()}"' in field


def test_the_overview_shows_the_capture_per_day_and_path(alice_client, shop, brand):
    day = timezone.now().astimezone(UTC).date() - timedelta(days=1)
    DailyCapture.objects.create(
        brand=brand, connection=shop, day=day, orders=212, by_webhook=200, by_confirmation=9, by_sync=3
    )

    text = alice_client.get("/health/", {"brand": brand.pk}).content.decode()

    assert 'id="sync-capture-days"' in text
    row = text[text.index(day.isoformat(), text.index('id="sync-capture-days"')) :][:900]
    assert ">212<" in row and ">200<" in row and ">9<" in row and ">3<" in row and "99 %" in row


def test_an_order_the_sync_brought_says_so_on_its_page(alice_client, shop, brand, prop):
    from attribution.orders.trace import StepKind, StepResult, step
    from health.log.models import OutcomeEvent
    from tests.factories import OrderFactory

    OrderFactory(
        brand=brand,
        order_id="450789003",
        via_api=False,
        via_platform=True,
        outcome="no_attribution",
        trace=[
            step(
                StepKind.SYNC,
                StepResult.RECOVERED,
                "Brought by the Shopify sync of acme-sync.myshopify.com (run 1)",
            )
        ],
    )
    OutcomeEvent.objects.create(
        brand=brand,
        endpoint="shopify_sync",
        outcome="no_attribution",
        http_status=200,
        order_id="450789003",
        received_at=timezone.now(),
        recorded_at=timezone.now(),
    )

    text = alice_client.get("/health/orders/450789003", {"brand": brand.pk}).content.decode()

    assert "Shopify sync" in text
    assert "Recovered by the platform&#x27;s sync" in text or "Recovered by the platform's sync" in text
