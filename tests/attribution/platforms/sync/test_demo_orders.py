"""The demo's shops hold orders no webhook delivered: once connected, Sync now of the last three days (the form's
preset: from the start of the day two days before) recovers every one of them with their commissions (the tour
in README.md says so), at any hour of the day."""

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.management.demo.standin.demo_orders import BLACKLISTED_CODE, CODE, add_demo_orders
from attribution.models import Commission, SyncRun
from attribution.platforms.sync.runner import sync_connection
from tests.factories import DiscountCodeFactory

from .conftest import SHOP, SITE


@pytest.mark.parametrize("hour", [0, 23])
def test_sync_now_of_the_last_three_days_recovers_the_demo_shops_orders(
    standin, shopify_shop, woo_site, clock, brand, creator, hour
):
    brand.commission_rate_percent = Decimal("10")
    brand.save()
    DiscountCodeFactory(brand=brand, code=CODE, creator=creator)
    DiscountCodeFactory(brand=brand, code=BLACKLISTED_CODE, creator=None, is_blacklisted=True)
    now = min(timezone.now(), datetime.combine(timezone.now().date(), time(hour, 5), tzinfo=UTC))
    add_demo_orders(standin, shop=SHOP, site=SITE, now=now)
    since = datetime.combine(now.date() - timedelta(days=2), time.min, tzinfo=UTC)

    for connection in (shopify_shop.connection, woo_site.connection):
        sync_connection(connection.pk, trigger="manual", since=since, until=now, sleep=clock.sleep)

    shopify_run, woo_run = SyncRun.objects.order_by("pk")
    assert (shopify_run.recovered, shopify_run.orders_read) == (10, 10)
    assert (woo_run.recovered, woo_run.skipped) == (3, 1)
    commissions = {c.order.order_id: (c.amount, c.state) for c in Commission.objects.select_related("order")}
    assert commissions["450789001"] == (Decimal("10.00"), "pending")
    assert commissions["450789003"] == (Decimal("5.00"), "pending")  # 30.00 of 80.00 refunded
    assert commissions["450789004"] == (Decimal("6.20"), "cancelled")
