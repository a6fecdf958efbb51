"""A connection's platform API credential: sealed at rest, readable only in clear by the code that calls the
platform, and whether the connection may be synced."""

from datetime import timedelta

import pytest
from django.utils import timezone

from brands.models import PlatformConnection
from tests.factories import PropertyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def connection():
    prop = PropertyFactory()
    made = PlatformConnection(
        brand=prop.brand, property=prop, platform="shopify", shop_domain="acme.myshopify.com"
    )
    made.set_secret("shpss_webhooks")
    made.full_clean()
    made.save()
    return made


def test_a_new_connection_is_typed_in_with_no_credential(connection):
    assert connection.connected_via == PlatformConnection.ConnectedVia.TYPED
    assert connection.has_credential() is False
    assert connection.credential_plain() == ""
    assert connection.can_sync() is False


def test_the_credential_is_kept_sealed_and_read_back_in_clear(connection):
    connection.set_credential("shpat_0123456789abcdef")
    connection.save()

    stored = PlatformConnection.objects.values_list("credential", flat=True).get(pk=connection.pk)
    assert "shpat_0123456789abcdef" not in stored
    assert PlatformConnection.objects.get(pk=connection.pk).credential_plain() == "shpat_0123456789abcdef"
    assert connection.can_sync() is True


@pytest.mark.parametrize(
    "change",
    [
        {"is_enabled": False},
        {"approved_at": None},
        {"disconnected_at": timezone.now()},
    ],
    ids=["disabled", "not approved", "disconnected"],
)
def test_only_an_enabled_approved_connected_one_with_a_credential_is_synced(connection, change):
    connection.set_credential("shpat_0123456789abcdef")
    for name, value in change.items():
        setattr(connection, name, value)

    assert connection.can_sync() is False


def test_a_connection_made_by_oauth_verifies_with_the_apps_client_secret(connection, settings):
    settings.SHOPIFY_CLIENT_SECRET = "app-client-secret"
    now = timezone.now()

    assert list(connection.signing_secrets(now=now)) == ["shpss_webhooks"]
    connection.connected_via = PlatformConnection.ConnectedVia.OAUTH
    assert list(connection.signing_secrets(now=now)) == ["shpss_webhooks", "app-client-secret"]


def test_an_expiring_pair_is_kept_together_and_a_new_credential_replaces_all_of_it(connection):
    expires = timezone.now()
    connection.set_credential(
        "shpat_1",
        expires_at=expires,
        refresh_token="shprt_1",
        refresh_expires_at=expires + timedelta(days=90),
    )
    connection.save()
    kept = PlatformConnection.objects.get(pk=connection.pk)
    assert (kept.credential_plain(), kept.refresh_token_plain()) == ("shpat_1", "shprt_1")
    assert "shprt_1" not in kept.refresh_token  # sealed
    assert kept.credential_expires_at == expires

    connection.set_credential("shpat_pasted")  # a token that does not expire: no refresh token of another
    assert (connection.credential_expires_at, connection.refresh_token) == (None, "")
    assert connection.refresh_token_expires_at is None
    connection.set_credential("")
    assert (connection.credential, connection.refresh_token_plain()) == ("", "")
