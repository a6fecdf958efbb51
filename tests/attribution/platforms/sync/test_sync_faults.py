"""The sync against what the platforms' APIs answer besides orders: pages (cursor, page number), THROTTLED
(HTTP 200 and 429) waited out by the bucket's figures, 5xx retried, a refused credential stopping the sync with
an incident that says how to reconnect, and another API version served than the pinned one."""

from datetime import timedelta

import pytest

from attribution.management.demo.standin import shopify_routes
from attribution.management.demo.standin.orders import requested_cost
from attribution.models import Order, SyncRun
from attribution.platforms.sync import shopify_orders, woocommerce_orders
from attribution.platforms.sync.orchestration import run_sync
from attribution.platforms.sync.runner import sync_connection
from brands.models import PlatformConnection
from health.alerts.models import Incident

from .conftest import SHOP, SITE, at, shopify_order, woo_order


def _day_of_shopify_orders(shop, day, count):
    shop.orders.extend(
        shopify_order(n, placed_at=at(day, n / 10), subtotal="20.00") for n in range(1, count + 1)
    )


def _queries(standin, kind="graphql.json"):
    return sum(1 for _, path in standin.calls if path.endswith(kind))


def test_shopify_orders_are_read_page_by_page_by_cursor(monkeypatch, standin, shopify_shop, clock, yesterday):
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 3)
    _day_of_shopify_orders(shopify_shop, yesterday, 8)

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.pages, run.orders_read, run.recovered) == ("done", 3, 8, 8)
    assert Order.objects.count() == 8
    assert run.cursor  # the last page's cursor: where a resumed run would have started


def test_woocommerce_orders_are_read_page_by_page(monkeypatch, standin, woo_site, clock, yesterday):
    monkeypatch.setattr(woocommerce_orders, "PAGE_SIZE", 2)
    woo_site.orders.extend(woo_order(n, placed_at=at(yesterday, n), total="10.00") for n in range(1, 6))

    sync_connection(woo_site.connection.pk, trigger="command", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.pages, run.orders_read, run.recovered) == ("done", 3, 5, 5)
    pages = [path for method, path in standin.calls if path.endswith("wc/v3/orders")]
    assert len(pages) == 3


@pytest.mark.parametrize("status", [200, 429])
def test_throttled_queries_are_waited_out_then_answered(standin, shopify_shop, clock, yesterday, status):
    _day_of_shopify_orders(shopify_shop, yesterday, 3)
    standin.throttle_next(SHOP, 2, status=status)

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.recovered) == ("done", 3)
    assert len(clock.waits) == 2 and all(wait > 0 for wait in clock.waits)


def test_a_bucket_too_low_for_the_page_waits_for_its_refill(standin, shopify_shop, clock, yesterday):
    _day_of_shopify_orders(shopify_shop, yesterday, 2)
    shopify_shop.bucket_available, shopify_shop.bucket_at = 94.0, clock()
    query, first = shopify_orders.orders_query(counts_total=False)

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)

    assert SyncRun.objects.get().status == "done"
    # (requested - available) / restoreRate: the webhooks' check took 2 points, so (requested - 92) / 100 points
    # a second; the bucket's figures are whole points, so a last short wait may follow.
    assert clock.waits[0] == pytest.approx((requested_cost(query, first) - 92) / 100)
    assert sum(clock.waits) < clock.waits[0] + 0.1


def test_a_query_the_bucket_cannot_pay_waits_for_the_refill_before_it_is_asked(
    monkeypatch, standin, shopify_shop, clock, yesterday
):
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 3)  # pages of 3 orders, all of their points used
    _day_of_shopify_orders(shopify_shop, yesterday, 9)
    asked = requested_cost(shopify_orders.orders_query(counts_total=False)[0], 3)
    shopify_shop.bucket_size = shopify_shop.bucket_available = asked * 2.3  # two pages, not three
    shopify_shop.restore_rate, shopify_shop.bucket_at = 1.0, clock()
    answers = []
    answer_orders = shopify_routes.orders.shopify_orders

    def recorded(*args):
        answers.append(answer_orders(*args))
        return answers[-1]

    monkeypatch.setattr(shopify_routes.orders, "shopify_orders", recorded)

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)

    assert (SyncRun.objects.get().status, SyncRun.objects.get().recovered) == ("done", 9)
    assert answers and not any(answer.get("errors") for answer in answers)  # never THROTTLED
    assert clock.waits and all(wait > 0 for wait in clock.waits)  # it waited, before asking


def test_server_errors_are_retried_then_answered(standin, shopify_shop, woo_site, clock, yesterday):
    _day_of_shopify_orders(shopify_shop, yesterday, 2)
    woo_site.orders.append(woo_order(1, placed_at=at(yesterday, 1), total="10.00"))
    standin.fail_next(SHOP, 2, status=502)
    standin.fail_next(SITE, 2, status=503)

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)
    sync_connection(woo_site.connection.pk, trigger="command", sleep=clock.sleep)

    assert list(SyncRun.objects.order_by("pk").values_list("status", "recovered")) == [
        ("done", 2),
        ("done", 1),
    ]


def test_a_platform_that_keeps_failing_stops_the_run_and_the_next_one_reads_the_window_again(
    standin, shopify_shop, clock, yesterday
):
    _day_of_shopify_orders(shopify_shop, yesterday, 2)
    standin.fail_next(SHOP, 50)

    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    failed = SyncRun.objects.get()
    assert failed.status == "failed" and failed.errors[-1]["kind"] == "unavailable"
    standin.fail_next(SHOP, 0)
    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    again = SyncRun.objects.latest("pk")
    assert again.window_start == failed.window_start  # no window was done: it starts where the first did
    assert (again.status, again.recovered) == ("done", 2)


@pytest.mark.parametrize("site", [False, True])
def test_a_refused_credential_stops_the_sync_and_asks_to_connect_again(
    standin, shopify_shop, woo_site, clock, yesterday, site
):
    connection = (woo_site if site else shopify_shop).connection
    standin.revoke(SITE if site else SHOP)

    synced = run_sync(connection.pk, trigger="nightly", sleep=clock.sleep)

    run = synced.run
    assert run.status == "failed" and run.errors[-1]["kind"] == "credential"
    connection.refresh_from_db()
    assert connection.disconnected_at is not None and not connection.can_sync()
    incident = Incident.objects.get(rule="disconnected")
    assert incident.subject == str(connection.pk)
    from health.alerts.descriptions import describe

    fix = describe(incident).fix
    assert "Connect with WooCommerce" in fix if site else "Connect with Shopify" in fix
    # A disconnected connection is not synced again until it is connected anew.
    assert sync_connection(connection.pk, trigger="nightly", sleep=clock.sleep).not_synced.startswith(
        "disconnected"
    )
    assert SyncRun.objects.count() == 1


def test_another_api_version_served_is_noted_and_alerted(standin, shopify_shop, clock, yesterday):
    shopify_shop.served_version = "2025-10"

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.served_version == "2025-10" and run.errors[-1]["kind"] == "api_version"
    incident = Incident.objects.get(rule="api_version")
    assert incident.counts["served"] == "2025-10" and incident.counts["pinned"] != "2025-10"


def test_a_connection_without_a_credential_is_not_synced(shopify_shop):
    PlatformConnection.objects.filter(pk=shopify_shop.connection.pk).update(credential="")

    synced = sync_connection(shopify_shop.connection.pk, trigger="nightly")

    assert synced.run is None and "no API credential" in synced.not_synced
    assert not SyncRun.objects.exists()


def test_the_first_nightly_window_reaches_back_a_week_and_the_next_starts_an_hour_before_the_last_run(
    shopify_shop, clock
):
    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    first = SyncRun.objects.get()
    assert first.window_end - first.window_start == timedelta(days=7)

    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    second = SyncRun.objects.latest("pk")
    assert second.window_start == first.window_end - timedelta(hours=1)
