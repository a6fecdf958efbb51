"""Two brands may claim one shop on their setup pages (a pending claim reserves nothing). The account manager's
bulk "Approve" must not pick between them by the list's order: competing claims selected together are refused,
each message names the claim's brand, and the list flags a shop claimed by more than one brand."""

import pytest

from brands.models import PlatformConnection
from tests import factories
from tests.attribution.platforms.conftest import SHOP

pytestmark = pytest.mark.django_db

ADMIN = "/admin/brands/platformconnection/"


def claim(prop, *, secret="a secret") -> PlatformConnection:
    connection = PlatformConnection(
        brand=prop.brand, property=prop, platform="shopify", shop_domain=SHOP, approved_at=None
    )
    connection.set_secret(secret)
    connection.save()
    return connection


@pytest.fixture
def manager(client):
    client.force_login(factories.UserFactory(username="am", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def claims(prop, other_prop):
    """Acme's claim (the rightful brand's), then Globex's on the same shop, made after it."""
    return claim(prop), claim(other_prop)


def approve(client, *connections) -> str:
    page = client.post(
        ADMIN, {"action": "approve", "_selected_action": [c.pk for c in connections]}, follow=True
    )
    return page.content.decode()


def pending(*connections) -> list[bool]:
    return [PlatformConnection.objects.get(pk=c.pk).is_pending() for c in connections]


def test_competing_claims_selected_together_are_refused_naming_each_brand(
    manager, claims, brand, other_brand
):
    page = approve(manager, *claims)

    assert pending(*claims) == [True, True]
    assert (
        f"Not approved: Shopify {SHOP} is claimed by more than one brand ({brand.name}, {other_brand.name}). "
        "Approve the rightful brand&#x27;s claim alone, then remove the others."
    ) in page


def test_a_claim_approved_alone_is_approved_naming_its_brand(manager, claims, brand):
    page = approve(manager, claims[0])

    assert pending(*claims) == [False, True]
    assert f"Approved: Shopify {SHOP} for {brand.name}." in page


def test_the_other_claim_then_cannot_be_approved_and_the_message_names_both_brands(
    manager, claims, brand, other_brand
):
    approve(manager, claims[0])

    page = approve(manager, claims[1])

    assert pending(*claims) == [False, True]
    assert (
        f"Not approved, the shop is already another approved connection&#x27;s: Shopify {SHOP} for "
        f"{other_brand.name} (approved for {brand.name})."
    ) in page


def test_the_list_flags_a_shop_claimed_by_more_than_one_brand(manager, claims, brand, other_brand):
    page = manager.get(ADMIN).content.decode()

    assert page.count(f"2 brands claim this shop: {brand.name}, {other_brand.name}") == 2


def test_the_list_can_show_only_contested_shops(manager, claims, prop):
    alone = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="woocommerce",
        shop_domain="shop.acme.example",
        approved_at=None,
    )
    alone.set_secret("s")
    alone.save()

    page = manager.get(ADMIN, {"claims": "contested"}).content.decode()

    assert SHOP in page and "woo.acme.example" not in page.split("result_list")[-1]
