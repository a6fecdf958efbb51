"""The daily capture each sync measures: of the shop's orders of a day, how many arrived live by the webhook or
by the order confirmation only, and how many only by the sync; an incident when the sync recovers any
("3 of 212 orders of Nov 23 arrived only by the nightly sync"), resolved by a sync that recovers none."""

from attribution.models import DailyCapture, SyncRun
from health.alerts.descriptions import describe
from health.alerts.models import Incident
from health.alerts.sync_incidents import sync_and_report

from .conftest import at, deliver_shopify, shopify_order


def test_a_day_s_capture_by_path_and_the_incident_of_what_only_the_sync_brought(
    client, shopify_shop, clock, yesterday, prop
):
    orders = [shopify_order(n, placed_at=at(yesterday, n), subtotal="20.00") for n in range(1, 8)]
    for node in orders[:3]:
        deliver_shopify(client, node)  # the webhook brought three
    # The order confirmation brought the fourth; its webhook never came.
    confirmed = client.post(
        "/api/order_confirmation",
        {
            "orderId": "450789004",
            "orderAmount": 20,
            "currency": "USD",
            "page_url": f"https://{prop.host}/thanks",
        },
        content_type="application/json",
    )
    assert confirmed.status_code == 200, confirmed.json()
    shopify_shop.orders.extend(orders)

    sync_and_report(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    day = DailyCapture.objects.get(day=yesterday.date())
    assert (day.orders, day.by_webhook, day.by_confirmation, day.by_sync) == (7, 3, 1, 3)
    incident = Incident.objects.get(rule="sync_recovered")
    assert incident.subject == f"{shopify_shop.connection.pk}:{yesterday.date().isoformat()}"
    said = describe(incident)
    assert said.summary == (
        f"3 of 7 orders of {yesterday:%b} {yesterday.day} arrived only by the nightly sync: the orders/paid "
        "webhook may be failing."
    )
    assert said.events_query["endpoint"] == "shopify_sync"

    # The next sync recovers nothing: the incident resolves, and the day's figures stand.
    sync_and_report(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert SyncRun.objects.latest("pk").recovered == 0
    incident.refresh_from_db()
    assert incident.resolved_at is not None
    day.refresh_from_db()
    assert (day.orders, day.by_sync) == (7, 3)
