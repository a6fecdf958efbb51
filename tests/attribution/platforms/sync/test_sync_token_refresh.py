"""The sync of a shop connected with Shopify's expiring tokens: a token Shopify refuses mid-run is renewed once
and the run goes on; a refresh Shopify refuses stops the run, disconnects the shop and opens the incident that
says how to connect it again."""

from attribution.models import SyncRun
from attribution.platforms.sync.orchestration import run_sync
from brands.models import PlatformConnection
from health.alerts.descriptions import describe
from health.alerts.models import Incident

from .conftest import SHOP, at, shopify_order


def _token_calls(standin) -> int:
    return sum(1 for _, path in standin.calls if path.endswith("/admin/oauth/access_token"))


def test_a_token_refused_mid_run_is_renewed_once_and_the_run_goes_on(standin, shopify_shop, clock, yesterday):
    shopify_shop.orders.append(shopify_order(1, placed_at=at(yesterday, 1), subtotal="20.00"))
    connection = shopify_shop.connection
    shopify_shop.tokens.pop(connection.credential_plain())  # refused before its expiry

    run_sync(connection.pk, trigger="command", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert (run.status, run.orders_read) == ("done", 1)
    assert _token_calls(standin) == 1
    assert PlatformConnection.objects.get(pk=connection.pk).credential_plain() in shopify_shop.tokens
    assert not Incident.objects.filter(rule="disconnected").exists()


def test_a_refused_refresh_stops_the_run_and_opens_the_reconnect_incident(standin, shopify_shop, clock):
    standin.revoke(SHOP)

    run_sync(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed" and run.errors[0]["kind"] == "credential"
    assert PlatformConnection.objects.get(pk=shopify_shop.connection.pk).disconnected_at is not None
    incident = Incident.objects.get()
    assert (incident.rule, incident.subject) == ("disconnected", str(shopify_shop.connection.pk))
    said = describe(incident)
    assert said.title == f"Shopify access not renewed: {SHOP}"
    assert "Connect with Shopify" in said.fix
