"""Round six, finding 3 (docs/threat-model.md): a hostile shop cannot keep a sync running. Pages are capped per run
and per day, a cursor or a page given again ends the run, every call has a total deadline that a trickling answer
cannot stretch; each stops the run as failed, with its reason and its incident. The same caps hold for the
webhook lists read at connect time."""

import httpx
import pytest

from attribution.models import SyncRun
from attribution.platforms.apis.errors import UnreadableAnswer
from attribution.platforms.apis.shopify import MAX_SUBSCRIPTION_PAGES, ShopifyAdmin
from attribution.platforms.apis.woocommerce import MAX_WEBHOOK_PAGES
from attribution.platforms.sync.orchestration import run_sync
from attribution.platforms.sync.runner import sync_connection
from attribution.platforms.sync.sources import source_for
from health.alerts.models import Incident
from tests.outbound_double import Trickle

from .conftest import at, shopify_order, woo_order
from .hostile import (
    json_answer,
    shopify_orders_answered_by,
    shopify_page,
    shopify_subscriptions_answered_by,
    woo_orders_answered_by,
)

pytestmark = pytest.mark.django_db

ENDLESS = {"X-WP-TotalPages": "999999999", "X-WP-Total": "99999999900"}


def _fresh_orders(yesterday):
    return lambda request, page: json_answer(
        [woo_order(page, placed_at=at(yesterday, 1), total="10.00")], headers=ENDLESS
    )


def test_a_site_claiming_endless_pages_is_stopped_at_the_pages_of_a_run(
    settings, outbound_double, woo_site, clock, yesterday
):
    settings.SYNC_MAX_PAGES_PER_RUN = 5
    asked = woo_orders_answered_by(outbound_double, _fresh_orders(yesterday))

    synced = run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.pages, len(asked)) == ("failed", 5, 5)
    assert not synced.unfinished  # not queued to carry on
    assert run.errors[-1]["kind"] == "limit" and "SYNC_MAX_PAGES_PER_RUN" in run.errors[-1]["text"]
    incident = Incident.objects.get(rule="sync_failed")
    assert "SYNC_MAX_PAGES_PER_RUN" in incident.counts["reason"] and incident.resolved_at is None


def test_a_shops_runs_stop_at_the_pages_of_a_day(settings, outbound_double, woo_site, clock, yesterday):
    settings.SYNC_MAX_PAGES_PER_RUN, settings.SYNC_MAX_PAGES_PER_DAY = 5, 8
    asked = woo_orders_answered_by(outbound_double, _fresh_orders(yesterday))

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)
    sync_connection(woo_site.connection.pk, trigger="manual", sleep=clock.sleep)
    sync_connection(woo_site.connection.pk, trigger="manual", sleep=clock.sleep)

    assert list(SyncRun.objects.order_by("pk").values_list("status", "pages")) == [
        ("failed", 5),
        ("failed", 3),
        ("failed", 0),
    ]
    assert len(asked) == 8
    assert "SYNC_MAX_PAGES_PER_DAY" in SyncRun.objects.order_by("pk").last().errors[-1]["text"]


def test_a_site_answering_the_same_page_again_ends_the_run(outbound_double, woo_site, clock, yesterday):
    same = [woo_order(1, placed_at=at(yesterday, 1), total="10.00")]
    asked = woo_orders_answered_by(outbound_double, lambda request, page: json_answer(same, headers=ENDLESS))

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.pages, len(asked)) == ("failed", 1, 2)
    assert "same orders as the page before" in run.errors[-1]["text"]


def test_a_shop_giving_a_cursor_again_ends_the_run(outbound_double, shopify_shop, clock, yesterday):
    node = shopify_order(1, placed_at=at(yesterday, 1), subtotal="20.00")
    asked = shopify_orders_answered_by(
        outbound_double, lambda request, page: shopify_page([node], more=True, cursor="same-cursor")
    )

    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.pages, len(asked)) == ("failed", 1, 2)
    assert "cursor it had given before" in run.errors[-1]["text"]


def test_a_page_sent_a_byte_every_five_seconds_fails_the_run_at_the_calls_deadline(
    settings, outbound_double, woo_site, clock
):
    settings.PLATFORM_CALL_SECONDS = 20.0
    trickles = []

    def trickling(request, page):
        trickles.append(Trickle(outbound_double, [b"["] + [b" "] * 1000, seconds=5.0))
        return httpx.Response(200, stream=trickles[-1])

    woo_orders_answered_by(outbound_double, trickling)
    began = outbound_double.clock()

    run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed" and run.errors[-1]["kind"] == "unavailable"
    assert "deadline" in run.errors[-1]["text"]
    assert len(trickles) == 1 and outbound_double.clock() - began <= 25.0  # one call, cut off at its deadline
    assert Incident.objects.filter(rule="sync_failed", resolved_at=None).count() == 1


def test_an_endless_list_of_webhook_subscriptions_is_read_no_further_than_its_cap(
    outbound_double, shopify_shop
):
    asked = shopify_subscriptions_answered_by(
        outbound_double,
        lambda request, page: json_answer(
            {
                "data": {
                    "webhookSubscriptions": {
                        "nodes": [
                            {"id": f"gid://{page}", "topic": "ORDERS_PAID", "uri": "https://x.example"}
                        ],
                        "pageInfo": {"hasNextPage": True, "endCursor": f"cursor-{page}"},
                    }
                }
            }
        ),
    )
    admin = ShopifyAdmin(shopify_shop.connection.shop_domain, shopify_shop.connection.credential_plain())

    with pytest.raises(UnreadableAnswer, match=f"more than {MAX_SUBSCRIPTION_PAGES} pages"):
        admin.webhook_subscriptions()

    assert len(asked) == MAX_SUBSCRIPTION_PAGES == 10


def test_an_endless_list_of_woocommerce_webhooks_is_read_no_further_than_its_cap(
    outbound_double, woo_site, clock, yesterday
):
    standin = outbound_double.handlers["standin.test"]
    asked = []

    def endless_webhooks(request):
        if request.url.path.endswith("/wc/v3/webhooks"):
            asked.append(request)
            return json_answer([{"id": len(asked), "topic": "order.created"}], headers=ENDLESS)
        return standin.handle_request(request)

    outbound_double.serve("standin.test", endless_webhooks)
    run = SyncRun(connection=woo_site.connection, window_start=yesterday, window_end=at(yesterday, 24))
    rest = source_for(woo_site.connection, run, sleep=clock.sleep).api

    with pytest.raises(UnreadableAnswer, match=f"more than {MAX_WEBHOOK_PAGES} pages"):
        rest.webhooks()

    assert len(asked) == MAX_WEBHOOK_PAGES


def test_no_call_runs_past_the_runs_budget(settings, outbound_double, woo_site, clock, yesterday):
    settings.PLATFORM_CALL_SECONDS = 20.0
    trickles = []

    def slow_then_trickling(request, page):
        body = json_answer([woo_order(page, placed_at=at(yesterday, 1), total="10.00")]).content
        pieces, seconds = ([body], 15.0) if page == 1 else ([b"["] + [b" "] * 100, 5.0)
        trickles.append(Trickle(outbound_double, pieces, seconds=seconds))
        return httpx.Response(200, headers={"X-WP-TotalPages": "3"}, stream=trickles[-1])

    woo_orders_answered_by(outbound_double, slow_then_trickling)
    began = outbound_double.clock()

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep, seconds=25.0)

    run = SyncRun.objects.get()
    assert (run.status, run.pages) == ("failed", 1) and "deadline" in run.errors[-1]["text"]
    # The second page had 10 s of the run's 25 left, not its own 20: its first piece past the budget's end (at
    # 30 s) was the last read, where its own deadline would have read on to 40 s.
    assert trickles[1].sent == 3 and outbound_double.clock() - began == 30.0
