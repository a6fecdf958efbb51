"""A brand's storefront-platform connections: the signing secret is write-only and kept encrypted, a replaced
one verifies for an hour, and an enabled connection hands the brand's orders off."""

import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from brands import sealing
from brands.models import PlatformConnection
from brands.resolution import resolve_host
from tests.factories import UserFactory

SECRET = "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"


@pytest.fixture
def manager_client(client, db):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def connect(prop, **values) -> PlatformConnection:
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform=values.pop("platform", "shopify"),
        shop_domain=values.pop("shop_domain", "acme-demo.myshopify.com"),
        **values,
    )
    connection.set_secret(SECRET)
    connection.full_clean()
    connection.save()
    return connection


def test_the_secret_is_kept_encrypted_and_read_back_for_signing(prop):
    connection = connect(prop)

    stored = PlatformConnection.objects.get(pk=connection.pk)
    assert SECRET not in stored.secret
    assert list(stored.signing_secrets(now=timezone.now())) == [SECRET]


def test_a_replaced_secret_still_verifies_for_an_hour_then_no_more(prop):
    connection = connect(prop)
    replaced_at = timezone.now()
    connection.set_secret("the-new-secret", at=replaced_at)
    connection.save()

    within = replaced_at + timedelta(minutes=59)
    after = replaced_at + timedelta(minutes=61)
    assert list(connection.signing_secrets(now=within)) == ["the-new-secret", SECRET]
    assert list(connection.signing_secrets(now=after)) == ["the-new-secret"]
    assert connection.replaced_secret() == SECRET  # kept to tell a stale signature from a forged one


def test_a_secret_sealed_under_other_keys_cannot_be_read(prop, settings):
    connection = connect(prop)
    settings.PLATFORM_SECRET_KEYS = [Fernet.generate_key().decode()]

    with pytest.raises(sealing.UnreadableSecret):
        list(connection.signing_secrets(now=timezone.now()))


def test_the_first_configured_key_seals_and_the_others_still_open(prop, settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.PLATFORM_SECRET_KEYS = [old]
    connection = connect(prop)
    settings.PLATFORM_SECRET_KEYS = [new, old]

    assert list(connection.signing_secrets(now=timezone.now())) == [SECRET]
    assert Fernet(new.encode()).decrypt(sealing.seal("x").encode()) == b"x"


def test_an_empty_secret_is_refused(prop):
    with pytest.raises(ValueError):
        PlatformConnection(brand=prop.brand, property=prop).set_secret("   ")


def test_a_shopify_connection_needs_the_myshopify_domain(prop):
    connection = PlatformConnection(
        brand=prop.brand, property=prop, platform="shopify", shop_domain="shop.acme.example"
    )
    connection.set_secret(SECRET)

    with pytest.raises(ValidationError) as refused:
        connection.full_clean()
    assert "myshopify.com" in str(refused.value)


def test_a_platform_no_one_registered_is_refused(prop):
    connection = PlatformConnection(
        brand=prop.brand, property=prop, platform="magento", shop_domain="shop.acme.example"
    )
    connection.set_secret(SECRET)

    with pytest.raises(ValidationError) as refused:
        connection.full_clean()
    assert refused.value.message_dict == {
        "platform": ["Choose one of the platforms this service receives orders from."]
    }


@pytest.mark.parametrize("name", ["Shopify", "shop ify", "9shop", "_shop", "a_platform_name_of_18"])
def test_the_database_keeps_only_a_platform_name_s_shape(prop, name):
    # A name too long is the column's DataError on PostgreSQL, the CHECK's on SQLite (no length of its own).
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        PlatformConnection.objects.create(
            brand=prop.brand, property=prop, platform=name, shop_domain="shop.acme.example", secret="x"
        )
    assert not PlatformConnection.objects.exists()


def test_the_database_takes_a_platform_it_has_never_heard_of(prop):
    """Which platforms exist is the registry's to say (the forms and clean() ask it), not the database's."""
    PlatformConnection.objects.create(
        brand=prop.brand, property=prop, platform="tiny_shop2", shop_domain="shop.acme.example", secret="x"
    )

    assert PlatformConnection.objects.get().platform == "tiny_shop2"


def test_a_woocommerce_connection_keeps_the_site_host_normalized(prop):
    connection = connect(prop, platform="woocommerce", shop_domain="https://WWW.Shop.Acme.Example/")

    assert connection.shop_domain == "shop.acme.example"


def test_a_shop_is_connected_to_one_brand_only(prop, other_prop):
    connect(prop)
    twin = PlatformConnection(
        brand=other_prop.brand, property=other_prop, platform="shopify", shop_domain="acme-demo.myshopify.com"
    )
    twin.set_secret(SECRET)

    with pytest.raises(ValidationError) as refused:
        twin.full_clean()
    assert "already connected" in str(refused.value)


def test_a_property_of_another_brand_is_refused(prop, other_prop):
    connection = PlatformConnection(
        brand=prop.brand, property=other_prop, platform="shopify", shop_domain="acme-demo.myshopify.com"
    )
    connection.set_secret(SECRET)

    with pytest.raises(ValidationError) as refused:
        connection.full_clean()
    assert "another brand" in str(refused.value)


def test_an_enabled_connection_hands_the_brand_s_orders_off(prop):
    assert resolve_host(prop.host).brand.storefront_handles_orders is False

    connection = connect(prop)
    assert resolve_host(prop.host).brand.storefront_handles_orders is True

    connection.is_enabled = False
    connection.save()
    assert resolve_host(prop.host).brand.storefront_handles_orders is False


def test_the_admin_takes_the_secret_and_never_shows_it_back(manager_client, prop):
    response = manager_client.post(
        "/admin/brands/platformconnection/add/",
        {
            "brand": prop.brand_id,
            "platform": "shopify",
            "shop_domain": "acme-demo.myshopify.com",
            "property": prop.pk,
            "signing_secret": SECRET,
            "amount_counted": "subtotal",
            "order_id_source": "id",
            "is_enabled": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    connection = PlatformConnection.objects.get()
    assert list(connection.signing_secrets(now=timezone.now())) == [SECRET]

    for page in (
        f"/admin/brands/platformconnection/{connection.pk}/change/",
        "/admin/brands/platformconnection/",
        f"/admin/brands/brand/{prop.brand_id}/change/",
    ):
        html = manager_client.get(page).content.decode()
        assert SECRET not in html
        assert connection.secret not in html
        assert "kept (encrypted)" in html


def test_the_admin_keeps_the_secret_when_the_field_is_left_empty(manager_client, prop):
    connection = connect(prop)
    kept = connection.secret

    response = manager_client.post(
        f"/admin/brands/platformconnection/{connection.pk}/change/",
        {
            "brand": prop.brand_id,
            "platform": "shopify",
            "shop_domain": "acme-demo.myshopify.com",
            "property": prop.pk,
            "signing_secret": "",
            "amount_counted": "total",
            "order_id_source": "name",
        },
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    connection.refresh_from_db()
    assert connection.secret == kept
    assert (connection.amount_counted, connection.order_id_source, connection.is_enabled) == (
        "total",
        "name",
        False,
    )


def test_a_new_connection_without_a_secret_is_a_form_error(manager_client, prop):
    response = manager_client.post(
        "/admin/brands/platformconnection/add/",
        {
            "brand": prop.brand_id,
            "platform": "shopify",
            "shop_domain": "acme-demo.myshopify.com",
            "property": prop.pk,
            "amount_counted": "subtotal",
            "order_id_source": "id",
        },
    )

    assert response.status_code == 200
    assert "Paste the signing secret the platform shows." in response.content.decode()
    assert not PlatformConnection.objects.exists()


def test_the_admin_shows_when_an_expiring_pair_expires_and_never_the_tokens(manager_client, prop):
    connection = connect(prop)
    at = datetime(2026, 11, 28, 13, 0, tzinfo=UTC)
    connection.set_credential(
        "shpat_access_1",
        expires_at=at,
        refresh_token="shprt_refresh_1",
        refresh_expires_at=at + timedelta(days=90),
    )
    connection.save()

    html = manager_client.get(f"/admin/brands/platformconnection/{connection.pk}/change/").content.decode()

    assert "expires 2026-11-28 13:00 UTC and is renewed before" in html
    assert "valid until 2027-02-26" in html
    assert "shpat_access_1" not in html and "shprt_refresh_1" not in html
    assert connection.refresh_token not in html


class _FormValues(HTMLParser):
    """The values a browser would post for the page's first POST form, as the page shows them."""

    def __init__(self):
        super().__init__()
        self.values, self._in_form, self._select, self._textarea = {}, False, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("method", "").lower() == "post":
            self._in_form = True
        elif not self._in_form or "name" not in attrs and tag != "option":
            return
        elif tag == "input" and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") not in ("checkbox", "radio") or "checked" in attrs:
                self.values[attrs["name"]] = attrs.get("value", "")
        elif tag == "select":
            self._select = attrs["name"]
            self.values.setdefault(self._select, "")
        elif tag == "option" and self._select and "selected" in attrs:
            self.values[self._select] = attrs.get("value", "")
        elif tag == "textarea":
            self._textarea = attrs["name"]
            self.values[self._textarea] = ""

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data


def as_shown(html: str) -> dict:
    parser = _FormValues()
    parser.feed(html)
    return parser.values


def test_a_brand_with_an_oauth_connection_is_saved_unchanged_in_the_admin(manager_client, prop):
    """The app's secret signs an OAuth connection's webhooks: the brand has none to paste (round six, "Also")."""
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain="acme-demo.myshopify.com",
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
    )
    connection.set_credential("shpat_token")
    connection.save()
    page = f"/admin/brands/brand/{prop.brand_id}/change/"
    values = as_shown(manager_client.get(page).content.decode())

    response = manager_client.post(page, {**values, "commission_rate_percent": "15"})

    assert response.status_code == 302, re.findall(
        r'<ul class="errorlist[^"]*">.*?</ul>', response.content.decode()
    )
    prop.brand.refresh_from_db()
    assert prop.brand.commission_rate_percent == 15
    connection.refresh_from_db()
    assert (connection.secret, connection.credential_plain()) == ("", "shpat_token")
