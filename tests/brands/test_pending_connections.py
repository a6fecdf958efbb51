"""A shop connected on the setup page is pending until an account manager approves it in the admin: anyone can
type any shop's domain there, and the first to do so used to win it. A pending connection receives nothing
and reserves nothing (the domain is unique among approved connections only); a delivery for it is answered
401 with the fix and logged with no body."""

import json

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.models import Order
from brands.models import PlatformConnection
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify

pytestmark = pytest.mark.django_db

ADMIN = "/admin/brands/platformconnection/"


def claim_on_setup_page(client, brand, prop, *, secret=SHOPIFY_SECRET):
    """A brand user of `brand` connects SHOP on the setup page, as any brand user can."""
    client.force_login(factories.MembershipFactory(brand=brand).user)
    answer = client.post(
        f"/health/setup/?brand={brand.pk}",
        {
            "form": "connection",
            "platform": "shopify",
            "shop_domain": SHOP,
            "property": prop.pk,
            "signing_secret": secret,
            "amount_counted": "subtotal",
            "order_id_source": "id",
        },
    )
    assert answer.status_code == 302, answer.content
    client.logout()
    return PlatformConnection.objects.get(brand=brand)


@pytest.fixture
def manager(client):
    def as_manager():
        client.force_login(factories.UserFactory(username="am", is_staff=True, is_superuser=True))
        return client

    return as_manager


def approve(client, *connections):
    return client.post(
        ADMIN, {"action": "approve", "_selected_action": [c.pk for c in connections]}, follow=True
    )


def test_a_shop_added_on_the_setup_page_waits_for_approval(client, brand, prop):
    connection = claim_on_setup_page(client, brand, prop)

    assert connection.is_pending() and connection.approved_at is None


def test_a_delivery_for_a_pending_connection_is_401_with_the_fix_and_logged_without_its_body(
    client, brand, prop
):
    claim_on_setup_page(client, brand, prop)
    raw = body_of(shopify_order())

    answer = post_shopify(client, raw)

    assert answer.status_code == 401
    assert answer.json() == {
        "success": False,
        "outcome": "unknown_shop",
        "error": f"The Shopify connection of {SHOP} waits for your account manager's approval: until then it "
        "receives nothing. Fix: ask your account manager to approve it; the platform sends the delivery again.",
    }
    assert not Order.objects.exists()
    row = OutcomeEvent.objects.get()
    assert row.brand_id is None  # nobody's yet
    kept = json.loads(row.request_body)
    assert (kept["refused"], kept["bytes"]) == ("unknown_shop", len(raw))
    assert "shopper" not in row.request_body


def test_a_pending_connection_does_not_hand_off_the_brand_s_order_confirmations(api, client, brand, prop):
    claim_on_setup_page(client, brand, prop)

    answer = api.post(
        "/api/order_confirmation",
        {"orderId": "P-1", "orderAmount": 10, "currency": "USD", "page_url": f"https://{prop.host}/ty"},
    )

    assert answer.json()["outcome"] == "no_attribution"  # recorded here, not shopify_handoff
    assert Order.objects.filter(order_id="P-1").exists()


def test_a_squatter_s_claim_reserves_nothing(client, brand, prop, other_brand, other_prop, manager):
    squatter = claim_on_setup_page(client, other_brand, other_prop, secret="the squatter's own secret")
    owner = claim_on_setup_page(client, brand, prop)  # the real owner can still connect her shop

    approve(manager(), owner)

    owner.refresh_from_db()
    squatter.refresh_from_db()
    assert not owner.is_pending() and squatter.is_pending()
    answer = post_shopify(client, body_of(shopify_order()))
    assert (answer.status_code, answer.json()["outcome"]) == (200, "no_attribution")
    assert Order.objects.get().brand == brand


def test_an_approved_connection_receives_its_shop_s_deliveries(client, brand, prop, manager):
    pending = claim_on_setup_page(client, brand, prop)

    page = approve(manager(), pending)

    assert f"Approved: Shopify {SHOP} for {brand.name}." in page.content.decode()
    pending.refresh_from_db()
    assert pending.approved_at is not None
    assert post_shopify(client, body_of(shopify_order())).json()["outcome"] == "no_attribution"


def test_a_claim_on_a_shop_another_brand_has_cannot_be_approved(
    client, brand, prop, other_brand, other_prop, manager
):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)  # approved, made in the admin
    squatter = claim_on_setup_page(client, other_brand, other_prop)

    page = approve(manager(), squatter)

    assert "Not approved, the shop is already another approved connection" in page.content.decode()
    squatter.refresh_from_db()
    assert squatter.is_pending()


def test_the_admin_lists_pending_connections(client, brand, prop, manager):
    claim_on_setup_page(client, brand, prop)

    page = manager().get(ADMIN, {"approved_at__isempty": "1"}).content.decode()

    assert SHOP in page and "Pending: receives nothing until approved" in page


def test_a_connection_made_in_the_admin_is_approved_as_made(prop):
    connection = connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)

    assert connection.approved_at is not None and not connection.is_pending()


def test_the_database_allows_one_approved_connection_per_shop_and_any_pending_claims(prop, other_prop):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    claim = PlatformConnection(
        brand=other_prop.brand, property=other_prop, platform="shopify", shop_domain=SHOP, approved_at=None
    )
    claim.set_secret("another")
    claim.save()

    claim.approved_at = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        claim.save()
