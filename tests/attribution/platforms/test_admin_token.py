"""An account manager pastes a legacy custom app's Admin API token in the admin: the same `shop` query as OAuth
proves it, so only a token of the named shop connects it (active at once, connected_via=admin_token)."""

import pytest

from brands.models import PlatformConnection
from tests import factories

URL = "/admin/brands/platformconnection/shopify-token/"
SHOP = "acme.myshopify.com"


@pytest.fixture
def manager(client, db):
    client.force_login(factories.UserFactory(username="manager", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def shop(standin):
    return standin.add_shop(SHOP, id=9001, currency="EUR")


def paste(client, brand, token, shop=SHOP, prop=""):
    return client.post(URL, {"brand": brand.pk, "property": prop, "shop": shop, "token": token})


def test_a_token_of_the_shop_connects_it_at_once(manager, brand, prop, shop, standin):
    token = standin.issue_token(SHOP, ["read_orders"])

    answer = paste(manager, brand, token, prop="shop.acme.example")

    connection = PlatformConnection.objects.get()
    assert answer.status_code == 302 and answer["Location"].endswith(f"/{connection.pk}/change/")
    assert connection.connected_via == PlatformConnection.ConnectedVia.ADMIN_TOKEN
    assert (connection.brand, connection.property, connection.shop_currency) == (brand, prop, "EUR")
    assert connection.credential_plain() == token and connection.can_sync()
    assert shop.subscriptions == []  # a custom app's webhooks are its own


def test_a_token_of_another_shop_is_refused_and_nothing_kept(manager, brand, prop, shop, standin):
    standin.add_shop("globex.myshopify.com")
    token = standin.issue_token("globex.myshopify.com", ["read_orders"])
    shop.tokens[token] = ["read_orders"]
    shop.answers_as = "globex.myshopify.com"

    answer = paste(manager, brand, token)

    assert answer.status_code == 200
    assert "opens globex.myshopify.com, not acme.myshopify.com" in answer.content.decode()
    assert PlatformConnection.objects.count() == 0


def test_a_revoked_token_is_refused(manager, brand, prop, shop):
    answer = paste(manager, brand, "shpat_unknown")

    assert "Shopify refused the token" in answer.content.decode()
    assert PlatformConnection.objects.count() == 0


def test_a_host_that_is_not_myshopify_is_refused_before_any_call(manager, brand, prop, standin):
    answer = paste(manager, brand, "shpat_x", shop="acme.example")

    assert "myshopify.com" in answer.content.decode()
    assert standin.calls == []


def test_only_account_managers_may_paste(client, brand, prop, shop):
    client.force_login(factories.MembershipFactory(brand=brand, user__username="brand-user").user)

    assert client.get(URL).status_code == 302  # to the admin's login
    assert client.post(URL, {"brand": brand.pk, "shop": SHOP, "token": "x"}).status_code == 302
    assert PlatformConnection.objects.count() == 0


def test_the_connections_list_links_to_it(manager, db):
    assert URL in manager.get("/admin/brands/platformconnection/").content.decode()
