"""Anyone can send a delivery naming a brand's public shop domain with a bad signature. Its brand's log keeps
a few such rows an hour per connection; beyond them each is counted per connection and hour, as events of no
brand are counted per host and hour, so a flood neither fills the log nor hides the shop's own failures: the
overview's figure counts them all."""

from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.models import PlatformDelivery
from health.log.models import OutcomeEvent, RefusedDeliveryCount
from health.log.retention import prune
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def few_an_hour(settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "signature_failures": "3/hour"}


def forged(shopify, n):
    return [
        shopify("orders/create", body=body_of(shopify_order()), secret="forged").status_code for _ in range(n)
    ]


def test_a_flood_of_bad_signatures_keeps_a_few_rows_and_counts_the_rest(shopify, shop, few_an_hour):
    assert forged(shopify, 10) == [401] * 10

    assert OutcomeEvent.objects.filter(brand=shop.brand, outcome="invalid_signature").count() == 3
    assert PlatformDelivery.objects.filter(verified=False).count() == 3
    counted = RefusedDeliveryCount.objects.get()
    assert (counted.brand_id, counted.connection_id, counted.count) == (shop.brand_id, shop.pk, 7)
    assert counted.hour == timezone.now().replace(minute=0, second=0, microsecond=0)


def test_the_shop_s_own_failure_after_a_flood_is_still_counted(shopify, shop, few_an_hour):
    forged(shopify, 3)
    # The shop itself, still signing with a secret replaced long ago.
    assert shopify("orders/create", shopify_order(), secret="an old secret").status_code == 401

    assert RefusedDeliveryCount.objects.get().count == 1


def test_the_overview_counts_every_refused_delivery_of_the_connection(client, shopify, shop, few_an_hour):
    forged(shopify, 10)
    client.force_login(factories.MembershipFactory(brand=shop.brand, user__username="alice").user)

    [figures] = client.get("/health/").context["platforms"]

    assert figures.signature_failures == 10


def test_another_connection_s_counts_are_its_own(shopify, shop, few_an_hour, other_prop):
    from tests.attribution.platforms.conftest import connect

    connect(other_prop, platform="shopify", shop_domain="globex.myshopify.com", secret="globex-secret")
    forged(shopify, 5)

    assert list(RefusedDeliveryCount.objects.values_list("connection_id", "count")) == [(shop.pk, 2)]


def test_counts_are_pruned_with_the_hourly_counts(shopify, shop, few_an_hour):
    forged(shopify, 5)

    prune(before=timezone.now() - timedelta(days=90), now=timezone.now() + timedelta(days=400))

    assert not RefusedDeliveryCount.objects.exists()
