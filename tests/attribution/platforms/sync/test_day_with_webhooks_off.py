"""A day with every webhook switched off loses nothing: the shop's orders of a day, a few delivered by webhook
before the webhooks were switched off and the rest never, are all recorded once by the sync, each with its
commission, its refunds and cancels followed; a second sync of the same window changes nothing."""

from decimal import Decimal

import pytest

from attribution.models import Commission, Order, SyncedOrder, SyncRun
from attribution.platforms.sync.runner import sync_connection
from health.log.models import OutcomeEvent
from tests.factories import ClickFactory, DiscountCodeFactory

from .conftest import at, deliver_shopify, deliver_woo, shopify_order, woo_order


@pytest.fixture
def code(brand, creator):
    return DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)


def _commissions():
    return {
        c.order.order_id: (c.amount, c.state, c.order.is_test)
        for c in Commission.objects.select_related("order").all()
    }


def test_a_shopify_day_with_webhooks_off_is_recorded_once_with_its_commissions(
    client, shopify_shop, clock, yesterday, prop, creator, code
):
    day = yesterday
    click = ClickFactory(property=prop, creator=creator, clicked_at=at(day, 0.5))
    late_click = ClickFactory(property=prop, creator=creator, clicked_at=at(day, 0.5))
    orders = [
        shopify_order(1, placed_at=at(day, 1), subtotal="100.00", code="ANA10"),
        shopify_order(2, placed_at=at(day, 2), subtotal="50.00", code="ANA10"),
        shopify_order(3, placed_at=at(day, 3), subtotal="100.00", code="ANA10"),
        shopify_order(4, placed_at=at(day, 4), subtotal="80.00", click_id=click.click_id),
        shopify_order(5, placed_at=at(day, 5), subtotal="30.00"),
        shopify_order(
            6, placed_at=at(day, 6), subtotal="120.00", code="ANA10", refunded="40.00", updated_at=at(day, 9)
        ),
        shopify_order(
            7, placed_at=at(day, 7), subtotal="60.00", code="ANA10", cancelled=True, updated_at=at(day, 8)
        ),
        shopify_order(
            8,
            placed_at=at(day, 8),
            subtotal="70.00",
            click_id=late_click.click_id,
            refunded="70.00",
            updated_at=at(day, 12),
        ),
        shopify_order(9, placed_at=at(day, 9), subtotal="25.00", code="ANA10", test=True),
    ]
    # Orders 1 and 2 came by webhook before the webhooks were switched off; order 2's refund did not.
    for node in orders[:2]:
        assert deliver_shopify(client, node).json()["outcome"] == "tracked"
    orders[1] = shopify_order(
        2, placed_at=at(day, 2), subtotal="50.00", code="ANA10", refunded="20.00", updated_at=at(day, 10)
    )
    shopify_shop.orders.extend(orders)

    sync_connection(shopify_shop.connection.pk, trigger=SyncRun.Trigger.COMMAND, sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.orders_read, run.recovered, run.followed, run.unchanged, run.skipped) == (
        "done",
        9,
        7,
        1,
        1,
        0,
    )
    assert Order.objects.count() == 9
    assert _commissions() == {
        "450789001": (Decimal("10.00"), "pending", False),
        "450789002": (Decimal("3.00"), "pending", False),  # the refund the webhook missed, followed
        "450789003": (Decimal("10.00"), "pending", False),
        "450789004": (Decimal("8.00"), "pending", False),
        "450789006": (Decimal("8.00"), "pending", False),  # 40.00 of 120.00 refunded
        "450789007": (Decimal("6.00"), "cancelled", False),
        "450789008": (Decimal("7.00"), "cancelled", False),  # refunded whole
        "450789009": (Decimal("2.50"), "pending", True),  # a test order: counted apart
    }
    assert Order.objects.get(order_id="450789005").outcome == "no_attribution"
    recovered = Order.objects.get(order_id="450789003")
    assert (
        recovered.trace[0]["signal"] == "sync"
        and "no webhook had delivered it" in recovered.trace[0]["detail"]
    )
    assert sorted(SyncedOrder.objects.filter(path="sync").values_list("order_id", flat=True)) == [
        f"45078900{n}" for n in range(3, 10)
    ]
    sync_rows = OutcomeEvent.objects.filter(endpoint="shopify_sync")
    assert sorted(sync_rows.values_list("order_id", "outcome")) == sorted(
        [
            ("450789002", "tracked"),
            ("450789003", "tracked"),
            ("450789004", "tracked"),
            ("450789005", "no_attribution"),
            ("450789006", "tracked"),
            ("450789007", "tracked"),
            ("450789007", "tracked"),
            ("450789008", "tracked"),
            ("450789008", "tracked"),
            ("450789009", "tracked"),
        ]
    )

    # A second sync of the same window changes nothing.
    rows_before, commissions_before = OutcomeEvent.objects.count(), _commissions()
    sync_connection(
        shopify_shop.connection.pk,
        trigger=SyncRun.Trigger.MANUAL,
        since=run.window_start,
        until=run.window_end,
        sleep=clock.sleep,
    )
    again = SyncRun.objects.latest("pk")
    assert (again.orders_read, again.recovered, again.followed, again.unchanged) == (9, 0, 0, 9)
    assert (OutcomeEvent.objects.count(), _commissions()) == (rows_before, commissions_before)


def test_a_woocommerce_day_with_webhooks_off_is_recorded_once_with_its_commissions(
    client, woo_site, clock, yesterday, prop, creator, code
):
    day = yesterday
    orders = [
        woo_order(1, placed_at=at(day, 1), total="100.00", code="ANA10"),
        woo_order(2, placed_at=at(day, 2), total="50.00", code="ANA10"),
        woo_order(3, placed_at=at(day, 3), total="90.00", code="ANA10", status="completed"),
        woo_order(4, placed_at=at(day, 4), total="40.00", code="ANA10", status="pending"),  # never paid
        woo_order(
            5, placed_at=at(day, 5), total="60.00", code="ANA10", status="cancelled", modified_at=at(day, 6)
        ),
        woo_order(
            6, placed_at=at(day, 6), total="80.00", code="ANA10", refunded="30.00", modified_at=at(day, 7)
        ),
    ]
    assert deliver_woo(client, orders[0]).json()["outcome"] == "tracked"
    assert deliver_woo(client, orders[1]).json()["outcome"] == "tracked"
    orders[1] = woo_order(
        2,
        placed_at=at(day, 2),
        total="50.00",
        code="ANA10",
        status="refunded",
        refunded="50.00",
        modified_at=at(day, 9),
    )
    woo_site.orders.extend(orders)

    sync_connection(woo_site.connection.pk, trigger=SyncRun.Trigger.COMMAND, sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.orders_read, run.recovered, run.followed, run.unchanged, run.skipped) == (
        "done",
        6,
        3,
        1,
        1,
        1,
    )
    assert _commissions() == {
        "701": (Decimal("10.00"), "pending", False),
        "702": (Decimal("5.00"), "cancelled", False),  # refunded whole: the webhook's update was lost
        "703": (Decimal("9.00"), "pending", False),
        "705": (Decimal("6.00"), "cancelled", False),
        "706": (Decimal("5.00"), "pending", False),
    }
    assert not Order.objects.filter(order_id="704").exists()

    rows_before = OutcomeEvent.objects.count()
    sync_connection(
        woo_site.connection.pk,
        trigger=SyncRun.Trigger.MANUAL,
        since=run.window_start,
        until=run.window_end,
        sleep=clock.sleep,
    )
    again = SyncRun.objects.latest("pk")
    assert (again.orders_read, again.recovered, again.followed, again.unchanged, again.skipped) == (
        6,
        0,
        0,
        5,
        1,
    )
    assert OutcomeEvent.objects.count() == rows_before
