"""Round six, findings 4 and 9 (docs/threat-model.md): a shop's answers are untrusted input. A page over the
answer cap fails the run cleanly with its reason; an order over the webhook body limit is refused as its webhook
would be, so nothing of it is kept whole; an answer that is not JSON, or not the documented shape, fails the run
with a typed reason and its incident, never a traceback that leaves the run `running`."""

import httpx
import pytest

from attribution.models import Order, SyncRun
from attribution.platforms.sync import woocommerce_orders
from attribution.platforms.sync.orchestration import run_sync
from attribution.platforms.sync.runner import sync_connection
from health.alerts.models import Incident
from health.log.models import OutcomeEvent
from tests.outbound_double import Endless

from .conftest import at, shopify_order, woo_order
from .hostile import json_answer, shopify_orders_answered_by, shopify_page, woo_orders_answered_by

pytestmark = pytest.mark.django_db


def test_a_page_over_the_answer_cap_fails_the_run_with_its_reason(settings, outbound_double, woo_site, clock):
    settings.PLATFORM_ANSWER_MAX_BYTES = 256 * 1024
    streams = []

    def huge(request, page):
        streams.append(Endless(size=64 * 1024))
        return httpx.Response(200, stream=streams[-1])

    woo_orders_answered_by(outbound_double, huge)

    run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed" and run.errors[-1]["kind"] == "platform"
    assert "over the 262,144 bytes read" in run.errors[-1]["text"]
    assert streams[0].sent <= 256 * 1024 + 64 * 1024  # read as a stream, stopped past the cap
    assert Incident.objects.get(rule="sync_failed").counts["reason"] == run.errors[-1]["text"]


def test_an_order_over_the_webhook_limit_is_refused_as_its_webhook_would_be(
    settings, woo_site, clock, yesterday
):
    settings.PLATFORM_BODY_MAX_BYTES = 4096
    big = woo_order(1, placed_at=at(yesterday, 1), total="10.00")
    big["customer_note"] = "x" * 9000
    woo_site.orders.extend([big, woo_order(2, placed_at=at(yesterday, 2), total="12.00")])

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "done" and (run.orders_read, run.recovered, run.skipped) == (2, 1, 1)
    assert Order.objects.count() == 1 and Order.objects.get().amount == 12
    assert any("4 KB, the most a webhook may carry" in e["text"] for e in run.errors)
    assert all(len(r.request_body or "") <= 4096 for r in OutcomeEvent.objects.all())


@pytest.mark.parametrize(
    "answer",
    [
        lambda: httpx.Response(200, content=b"<html>not JSON{"),
        lambda: httpx.Response(200, content=b"\xff\xfe\x00"),
        lambda: json_answer({"orders": []}),
        lambda: json_answer("a string"),
    ],
)
def test_a_woocommerce_page_that_is_not_a_list_of_orders_fails_the_run_typed(
    outbound_double, woo_site, clock, answer
):
    woo_orders_answered_by(outbound_double, lambda request, page: answer())

    synced = run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert synced.run.pk == run.pk and run.status == "failed" and run.finished_at is not None
    assert run.errors[-1]["kind"] == "platform" and "WooCommerce's orders page 1" in run.errors[-1]["text"]
    assert Incident.objects.filter(rule="sync_failed").count() == 1


@pytest.mark.parametrize(
    "answer",
    [
        lambda: httpx.Response(200, content=b"{not json"),
        lambda: json_answer({"data": {"orders": None}}),
        lambda: json_answer({"data": {}}),
        lambda: json_answer([1, 2]),
        lambda: shopify_page(["not an order"], more=False, cursor=None),
        lambda: shopify_page(
            [{"legacyResourceId": "1", "customerJourneySummary": "oops"}], more=False, cursor=None
        ),
        lambda: shopify_page([], more=True, cursor=None),
    ],
)
def test_a_shopify_answer_of_another_shape_fails_the_run_typed(outbound_double, shopify_shop, clock, answer):
    shopify_orders_answered_by(outbound_double, lambda request, page: answer())

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed" and run.errors[-1]["kind"] == "platform", run.errors
    assert "Shopify" in run.errors[-1]["text"]
    assert Incident.objects.filter(rule="sync_failed").count() == 1


def test_an_unexpected_fault_still_ends_the_run_as_failed(monkeypatch, woo_site, clock):
    def broken(self, cursor):
        raise RuntimeError("a bug")

    monkeypatch.setattr(woocommerce_orders.WooCommerceOrders, "page", broken)

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed" and run.errors[-1] == {**run.errors[-1], "kind": "service"}
    assert "RuntimeError" in run.errors[-1]["text"]


def test_a_good_run_after_a_failed_one_resolves_its_incident(outbound_double, shopify_shop, clock, yesterday):
    shopify_orders_answered_by(outbound_double, lambda request, page: json_answer({"data": {}}))
    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    shopify_orders_answered_by(
        outbound_double,
        lambda request, page: shopify_page(
            [shopify_order(1, placed_at=at(yesterday, 1), subtotal="20.00")], more=False, cursor="c1"
        ),
    )

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert Incident.objects.get(rule="sync_failed").resolved_at is not None
