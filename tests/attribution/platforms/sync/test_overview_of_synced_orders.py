"""The overview tells one story of a shop whose orders only the sync brought: the Storefront platform block counts
them as the sync's (none by the webhook), as Capture by path does, and the Orders and Tracked cards count them
with every other way in."""

from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.models import Order
from attribution.platforms.sync.orchestration import run_sync
from tests.factories import DiscountCodeFactory, MembershipFactory, UserFactory

from .conftest import at, shopify_order

pytestmark = pytest.mark.django_db


@pytest.fixture
def merchant(client, brand):
    user = UserFactory(username="merchant")
    MembershipFactory(user=user, brand=brand)
    client.force_login(user)
    return client


def synced_only(shopify_shop, clock, brand, creator):
    """Three orders of the shop that only the sync brought, two of them by Ana's code."""
    DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    placed = timezone.now() - timedelta(hours=3)
    shopify_shop.orders.extend(
        [
            shopify_order(1, placed_at=at(placed, 0), subtotal="20.00", code="ANA10"),
            shopify_order(2, placed_at=at(placed, 0), subtotal="30.00", code="ANA10"),
            shopify_order(3, placed_at=at(placed, 0), subtotal="40.00"),
        ]
    )
    run_sync(
        shopify_shop.connection.pk, trigger="manual", since=placed - timedelta(hours=1), sleep=clock.sleep
    )
    assert Order.objects.filter(brand=brand, via_platform=True, via_api=False).count() == 3


def test_a_shop_with_only_synced_orders_shows_them_as_the_sync_s_everywhere(
    merchant, shopify_shop, clock, brand, creator
):
    synced_only(shopify_shop, clock, brand, creator)

    response = merchant.get("/health/", {"brand": brand.pk, "period": "7d"})

    [figures] = response.context["platforms"]
    assert (figures.platform_only, figures.confirmation_only, figures.both, figures.sync_only) == (0, 0, 0, 3)
    assert (figures.deliveries, figures.last_delivery) == (0, None)  # the sync's records are no webhook's
    assert (figures.platform_share, figures.confirmation_share, figures.sync_share) == (0, 0, 100)
    summary = response.context["summary"]
    assert (summary.orders_total, summary.orders_accepted, summary.orders_tracked) == (3, 3, 2)
    assert summary.orders_recovered == 3
    text = response.content.decode()
    assert (
        "the platform's webhook brought 0.0%, the order confirmation 0.0% and only the sync 100.0%." in text
    )
    assert "3 recovered by the sync" in text
    [day] = response.context["live_share"]
    assert (day.orders, day.by_webhook, day.by_confirmation, day.by_sync) == (3, 0, 0, 3)


def test_the_portfolio_counts_them_and_shows_the_brand_s_last_sync(
    client, shopify_shop, clock, brand, creator
):
    synced_only(shopify_shop, clock, brand, creator)
    client.force_login(UserFactory(username="manager", is_staff=True))

    response = client.get("/health/portfolio/")

    [row] = response.context["rows"]
    assert (row.orders, row.tracked) == (3, 2)
    assert row.last_sync.recovered == 3
    assert "3 recovered" in response.content.decode()


def test_a_recovered_order_and_its_commission_count_on_the_day_it_was_placed(
    shopify_shop, clock, brand, creator
):
    from attribution.models import Commission

    DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    placed = (timezone.now() - timedelta(days=2)).replace(microsecond=0)
    shopify_shop.orders.append(shopify_order(1, placed_at=placed, subtotal="20.00", code="ANA10"))

    run_sync(
        shopify_shop.connection.pk, trigger="manual", since=placed - timedelta(hours=1), sleep=clock.sleep
    )

    order = Order.objects.get(brand=brand)
    assert order.received_at == placed  # the day the charts, the creator page and statements count it on
    assert Commission.objects.get(order=order).created_at == placed
