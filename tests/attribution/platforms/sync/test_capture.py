"""The daily capture each sync measures: of the shop's orders of a day, how many arrived live by the webhook or
by the order confirmation only, and how many only by the sync; one incident a shop when the sync recovers any,
listing its days ("3 of 7 orders of acme-shop arrived only by the sync (3 of 7 on Nov 23)"), resolved by a sync
that recovers none."""

from datetime import timedelta

from attribution.models import DailyCapture, SyncRun
from attribution.platforms.sync.orchestration import run_sync
from health.alerts.descriptions import describe
from health.alerts.models import Incident

from .conftest import at, deliver_shopify, shopify_order, woo_order


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

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    day = DailyCapture.objects.get(day=yesterday.date())
    assert (day.orders, day.by_webhook, day.by_confirmation, day.by_sync) == (7, 3, 1, 3)
    incident = Incident.objects.get(rule="sync_recovered")
    assert incident.subject == str(shopify_shop.connection.pk)
    said = describe(incident)
    shop = shopify_shop.connection.shop_domain
    assert said.summary == (
        f"3 of 7 orders of {shop} arrived only by the sync (3 of 7 on {yesterday:%b} {yesterday.day}): the "
        "orders/paid webhook may be failing."
    )
    assert said.events_query["endpoint"] == "shopify_sync"

    # The next sync recovers nothing: the incident resolves, and the day's figures stand.
    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert SyncRun.objects.latest("pk").recovered == 0
    incident.refresh_from_db()
    assert incident.resolved_at is not None
    day.refresh_from_db()
    assert (day.orders, day.by_sync) == (7, 3)


def test_three_days_the_sync_brought_open_one_incident_of_the_shop_listing_them(
    shopify_shop, clock, yesterday
):
    days = [yesterday - timedelta(days=n) for n in (2, 1, 0)]
    shopify_shop.orders.extend(
        shopify_order(10 * (i + 1) + n, placed_at=at(day, n), subtotal="20.00")
        for i, day in enumerate(days)
        for n in range(1, i + 2)
    )  # one order the first day, two the second, three the third; no webhook brought any

    run_sync(
        shopify_shop.connection.pk,
        trigger="manual",
        since=days[0],
        until=yesterday + timedelta(days=1),
        sleep=clock.sleep,
    )

    incident = Incident.objects.get(rule="sync_recovered")
    assert incident.resolved_at is None
    said = describe(incident)
    listed = "; ".join(f"{n} of {n} on {day:%b} {day.day}" for n, day in zip((1, 2, 3), days, strict=True))
    assert said.summary == (
        f"6 of 6 orders of {shopify_shop.connection.shop_domain} arrived only by the sync ({listed}): the "
        "orders/paid webhook may be failing."
    )
    assert said.events_query["from"] == days[0].date().isoformat()
    assert said.events_query["to"] == days[-1].date().isoformat()


def test_a_woocommerce_shop_s_incident_speaks_of_woocommerce_only(woo_site, clock, yesterday):
    woo_site.orders.append(woo_order(1, placed_at=at(yesterday, 1), total="40.00"))

    run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    said = describe(Incident.objects.get(rule="sync_recovered"))
    text = f"{said.title} {said.summary} {said.fix}"
    assert "order.created webhook" in text and "WooCommerce never retries" in text
    assert "Shopify" not in text
