"""The demo's shops hold orders no webhook delivered: once connected, Sync now of the last three days recovers
them with their commissions (the tour in README.md says so)."""

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from attribution.models import Commission, SyncRun
from attribution.platforms.standin.demo_orders import add_demo_orders
from attribution.platforms.sync.runner import sync_connection
from tests.factories import DiscountCodeFactory

from .conftest import SHOP, SITE


def test_sync_now_recovers_the_demo_shops_orders(standin, shopify_shop, woo_site, clock, brand, creator):
    DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    DiscountCodeFactory(brand=brand, code="STAFF50", creator=None, is_blacklisted=True)
    now = timezone.now()
    add_demo_orders(standin, main_shop=SHOP, other_site=SITE, now=now)

    for connection in (shopify_shop.connection, woo_site.connection):
        sync_connection(
            connection.pk, trigger="manual", since=now - timedelta(days=3), until=now, sleep=clock.sleep
        )

    shopify_run, woo_run = SyncRun.objects.order_by("pk")
    assert (shopify_run.recovered, shopify_run.orders_read) == (10, 10)
    assert (woo_run.recovered, woo_run.skipped) == (3, 1)
    commissions = {c.order.order_id: (c.amount, c.state) for c in Commission.objects.select_related("order")}
    assert commissions["450789001"] == (Decimal("10.00"), "pending")
    assert commissions["450789003"] == (Decimal("5.00"), "pending")  # 30.00 of 80.00 refunded
    assert commissions["450789004"] == (Decimal("6.20"), "cancelled")
