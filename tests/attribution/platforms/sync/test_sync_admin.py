"""The account manager sees the syncs: the admin's list of sync runs across brands (shop, window, read,
recovered, errors, state), each connection's last sync on the connections list, and Sync in the pages'
navigation."""

import pytest

from attribution.platforms.sync.orchestration import run_sync
from tests.factories import MembershipFactory, UserFactory

from .conftest import at, shopify_order

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager(client):
    client.force_login(UserFactory(username="manager", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def synced(shopify_shop, clock, yesterday):
    shopify_shop.orders.extend(shopify_order(n, placed_at=at(yesterday, n), subtotal="20.00") for n in (1, 2))
    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    return shopify_shop.connection


def test_the_admin_lists_every_brand_s_sync_runs_with_their_figures(
    manager, synced, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        response = manager.get("/admin/attribution/syncrun/")

    assert response.status_code == 200
    text = response.content.decode()
    assert synced.shop_domain in text and synced.brand.name in text
    row = text[text.index(synced.shop_domain) :][:1200]
    assert 'class="field-orders_read">2<' in row and 'class="field-recovered">2<' in row
    assert 'class="field-error_count">0<' in row and "Done" in row
    assert manager.get("/admin/attribution/syncrun/add/").status_code == 403


def test_the_connections_list_shows_each_one_s_last_sync(manager, synced):
    text = manager.get("/admin/brands/platformconnection/").content.decode()

    assert "done, 2 recovered" in text


def test_sync_is_in_the_navigation_of_a_brand_s_pages(client, brand):
    user = UserFactory(username="merchant")
    MembershipFactory(user=user, brand=brand)
    client.force_login(user)

    text = client.get("/health/").content.decode()

    assert 'href="/health/sync/"' in text
