"""A shop disconnected (the app uninstalled, its credential revoked) opens an incident that says how to connect
it again; connecting it again, or turning the connection off, resolves it."""

import pytest
from django.utils import timezone

from brands.models import PlatformConnection
from health.alerts.descriptions import describe
from health.alerts.evaluation import evaluate
from health.alerts.models import Incident

pytestmark = pytest.mark.django_db


@pytest.fixture
def connection(prop):
    made = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain="acme.myshopify.com",
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
    )
    made.set_credential("shpat_live")
    made.save()
    return made


def disconnect(connection, reason="The shop uninstalled the app on 2026-11-27 21:00 UTC."):
    PlatformConnection.objects.filter(pk=connection.pk).update(
        disconnected_at=timezone.now(), disconnect_reason=reason, credential=""
    )


def test_a_connected_shop_opens_nothing(connection):
    assert evaluate(exclusive=False).opened == []


def test_a_disconnected_shop_opens_one_incident_saying_how_to_reconnect(connection, prop):
    disconnect(connection)

    opened = evaluate(exclusive=False).opened

    assert [(i.brand_id, i.rule, i.subject) for i in opened] == [
        (prop.brand_id, "disconnected", str(connection.pk))
    ]
    said = describe(opened[0])
    assert said.title == "Shop disconnected: acme.myshopify.com"
    assert "uninstalled the app" in said.summary and said.summary.startswith("Shopify acme.myshopify.com")
    assert "Connect with Shopify" in said.fix
    assert evaluate(exclusive=False).opened == []  # still open: not opened twice


@pytest.mark.parametrize(
    "change",
    [{"disconnected_at": None, "disconnect_reason": ""}, {"is_enabled": False}],
    ids=["reconnected", "off"],
)
def test_it_resolves_once_reconnected_or_turned_off(connection, change):
    disconnect(connection)
    evaluate(exclusive=False)
    PlatformConnection.objects.filter(pk=connection.pk).update(**change)

    resolved = evaluate(exclusive=False).resolved

    assert [i.rule for i in resolved] == ["disconnected"]
    assert Incident.objects.get().resolved_at is not None


def test_uninstalling_the_app_opens_it(client, connection, settings):
    from attribution.management.demo.standin.webhook_bodies import body_of, signature

    settings.SHOPIFY_CLIENT_SECRET = "app-secret"
    body = body_of({"id": 1, "myshopify_domain": "acme.myshopify.com"})
    client.post(
        "/api/platforms/shopify/app/uninstalled",
        body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="app/uninstalled",
        HTTP_X_SHOPIFY_SHOP_DOMAIN="acme.myshopify.com",
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(body, "app-secret"),
    )

    (incident,) = evaluate(exclusive=False).opened
    assert "uninstalled the app" in describe(incident).summary
