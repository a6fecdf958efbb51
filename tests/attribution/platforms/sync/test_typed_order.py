"""A synced order reaches the decision as the same typed order (attribution.orders.incoming) as the order
confirmation of the same order, its lines included (their products' collections read once and kept, a day at
most), built once from the page the platform answered; and an amount
the API would refuse ("1e6") is refused from the sync too, with its outcome recorded (issue 55, finding 10)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models import F

from attribution.models import Order, SyncRun
from attribution.platforms.sync.runner import sync_connection
from brands.models import ProductCollections
from health.log.models import OutcomeEvent
from tests.attribution.typed_orders import Decided, apart_from_lines, as_confirmed, sold

from .conftest import at, shopify_order, woo_order

pytestmark = pytest.mark.django_db

LINES = (
    {"sku": "LIN-M", "product_id": 9782123692332, "variant_id": 50398373085484, "price": "30.00", "quantity": 2,
     "discount": "6.00", "tax": "4.10", "vendor": "Acme"},
    {"sku": "BELT-01", "product_id": 9782123692340, "price": "20.00"},
)  # fmt: skip


def test_a_synced_shopify_order_reaches_the_decision_as_its_order_confirmation_would(
    shopify_shop, clock, yesterday, prop, monkeypatch
):
    shopify_shop.orders.append(
        shopify_order(
            1,
            placed_at=at(yesterday, 1),
            subtotal="74.00",
            email="shopper@example.com",
            lines=LINES,
            shipping="5.00",
        )
    )
    confirmed = as_confirmed(
        {
            "orderId": "450789001",
            "orderAmount": "74.00",
            "currency": "USD",
            "domain": prop.host,
            "customer_email": "shopper@example.com",
            "items": [
                {"sku": "LIN-M", "product_id": "9782123692332", "quantity": 2, "amount": "54.00"},
                {"sku": "BELT-01", "product_id": "9782123692340", "amount": "20.00"},
            ],
        }
    )
    decided = Decided(monkeypatch)

    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert decided.built == 1
    (order,) = decided.orders
    assert apart_from_lines(order) == apart_from_lines(confirmed)
    assert sold(order) == sold(confirmed)
    first = order.lines.lines[0]
    assert (first.gross, first.discount, first.tax, first.variant_id) == (
        Decimal("60.00"), Decimal("6.00"), Decimal("4.10"), "50398373085484"
    )  # fmt: skip
    assert (order.lines.shipping, order.lines.taxes_included, order.lines.ignored) == (
        Decimal("5.00"),
        False,
        "",
    )


def test_a_synced_woocommerce_order_carries_its_lines(woo_site, clock, yesterday, monkeypatch):
    woo_site.orders.append(
        woo_order(
            1,
            placed_at=at(yesterday, 1),
            total="45.00",
            lines=({"sku": "LIN-M", "product_id": 93, "quantity": 2, "subtotal": "50.00", "total": "45.00"},),
        )
    )
    decided = Decided(monkeypatch)

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    (line,) = decided.orders[0].lines.lines
    assert (line.sku, line.product_id, line.quantity, line.gross, line.discount) == (
        "LIN-M", "93", 2, Decimal("50.00"), Decimal("5.00")
    )  # fmt: skip


def test_a_synced_amount_the_api_would_refuse_is_refused_and_recorded(woo_site, clock, yesterday):
    woo_site.orders.append(woo_order(1, placed_at=at(yesterday, 1), total="1e6"))

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert not Order.objects.exists()
    event = OutcomeEvent.objects.get(endpoint="woocommerce_sync")
    assert (event.outcome, event.order_id) == ("invalid_order_amount", "701")
    assert "total must be a plain number" in str(event.response_body)
    assert SyncRun.objects.get().status == "done"


def test_the_sync_keeps_its_products_collections_and_its_orders_lines_name_them(
    shopify_shop, clock, yesterday, monkeypatch
):
    shopify_shop.products = {"9782123692332": ["summer", "linen"], "9782123692340": []}
    shopify_shop.orders.append(shopify_order(1, placed_at=at(yesterday, 1), subtotal="74.00", lines=LINES))
    decided = Decided(monkeypatch)

    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    kept = dict(ProductCollections.objects.values_list("product_id", "collections"))
    assert kept == {"9782123692332": ["summer", "linen"], "9782123692340": []}
    assert [line.collections for line in decided.orders[0].lines.lines] == [("summer", "linen"), ()]


def test_a_woocommerce_sync_keeps_its_products_categories(woo_site, clock, yesterday):
    woo_site.products = {"93": ["summer"]}
    woo_site.orders.append(
        woo_order(
            1,
            placed_at=at(yesterday, 1),
            total="45.00",
            lines=({"sku": "LIN-M", "product_id": 93, "quantity": 1, "subtotal": "45.00", "total": "45.00"},),
        )
    )

    sync_connection(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert list(ProductCollections.objects.values_list("platform", "product_id", "collections")) == [
        ("woocommerce", "93", ["summer"])
    ]


def test_collections_read_within_a_day_are_not_read_again(shopify_shop, clock, yesterday, monkeypatch):
    shopify_shop.products = {"9782123692332": ["summer"], "9782123692340": []}
    shopify_shop.orders.append(shopify_order(1, placed_at=at(yesterday, 1), subtotal="74.00", lines=LINES))
    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    shopify_shop.products = {"9782123692332": ["winter"], "9782123692340": []}
    SyncRun.objects.update(status="done")

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep, since=yesterday)

    assert ProductCollections.objects.get(product_id="9782123692332").collections == ["summer"]
    # A day later they are read again.
    ProductCollections.objects.update(refreshed_at=F("refreshed_at") - timedelta(days=1, seconds=1))
    SyncRun.objects.update(status="done")

    sync_connection(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep, since=yesterday)

    assert ProductCollections.objects.get(product_id="9782123692332").collections == ["winter"]
