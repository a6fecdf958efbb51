"""/health/orders/<order id>: a foreign-currency order's commission shows its amount in the brand's reporting
currency with the rate, its date and its source; an order the sync recovered shows when it was placed. Alice
sees Acme's; Bob, of Globex, gets a 404."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.models import SyncedOrder, SyncRun
from brands.models import PlatformConnection
from tests.factories import CommissionFactory, OrderFactory

pytestmark = pytest.mark.django_db


def test_a_eur_order_shows_its_commission_in_the_reporting_currency_with_rate_date_and_source(
    alice_client, client, bob, brand
):
    order = OrderFactory(brand=brand, order_id="EU-1", amount=Decimal("120.00"), currency="EUR")
    CommissionFactory(
        order=order,
        amount=Decimal("12.00"),
        reporting_currency="USD",
        reporting_amount=Decimal("13.93"),
        fx_rate="1.160833",
        fx_rate_date=date(2026, 10, 30),
        fx_source="ECB",
    )

    text = alice_client.get("/health/orders/EU-1").content.decode()

    said = text[text.index('id="commission-reporting"') :][:400]
    assert "13.93 USD" in said
    assert "1 EUR = 1.160833 USD, the ECB rate of 2026-10-30" in said
    client.force_login(bob)
    assert client.get("/health/orders/EU-1").status_code == 404


def test_an_order_in_the_reporting_currency_shows_no_conversion(alice_client, brand):
    CommissionFactory(order=OrderFactory(brand=brand, order_id="US-1"))

    assert 'id="commission-reporting"' not in alice_client.get("/health/orders/US-1").content.decode()


def test_a_recovered_order_shows_when_it_was_placed(alice_client, brand, prop):
    placed = timezone.now() - timedelta(days=2, hours=3)
    OrderFactory(brand=brand, order_id="450789001", via_api=False, via_platform=True)
    connection = PlatformConnection.objects.create(
        brand=brand, property=prop, platform="shopify", shop_domain="acme-sync.myshopify.com", secret="x"
    )
    now = timezone.now()
    run = SyncRun.objects.create(
        brand=brand,
        connection=connection,
        trigger="manual",
        window_start=now - timedelta(days=3),
        window_end=now,
        status="done",
        finished_at=now,
    )
    SyncedOrder.objects.create(
        brand=brand,
        connection=connection,
        run=run,
        order_id="450789001",
        path="sync",
        day=placed.date(),
        placed_at=placed,
    )

    text = alice_client.get("/health/orders/450789001").content.decode()

    said = text[text.index('id="order-placed"') :][:200]
    assert f"{placed.astimezone(timezone.get_current_timezone()):%Y-%m-%d %H:%M:%S}" in said
    assert f'by the platform\'s <a href="/health/sync/{run.pk}/?brand={brand.pk}">sync</a>' in text
