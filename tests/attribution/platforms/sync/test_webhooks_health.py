"""The webhooks' health, checked by each sync: a Shopify subscription removed is re-created and an incident says
which and since when; a WooCommerce webhook disabled is re-enabled once, with an incident, and left disabled if
it is disabled again; a check that finds them whole resolves the incident."""

from attribution.models import SyncRun
from attribution.platforms.sync.orchestration import run_sync
from attribution.platforms.sync.webhooks import receiver_url
from health.alerts.descriptions import describe
from health.alerts.models import Incident

from .conftest import SHOP, SITE


def _topics(shop):
    return sorted(s["topic"] for s in shop.subscriptions)


def test_a_removed_subscription_is_re_created_and_an_incident_says_so(standin, shopify_shop, clock):
    whole = _topics(shopify_shop)
    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)  # all there
    standin.remove_subscription(SHOP, "ORDERS_PAID")

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert _topics(shopify_shop) == whole
    made = next(s for s in shopify_shop.subscriptions if s["topic"] == "ORDERS_PAID")
    assert made["uri"] == receiver_url("shopify")
    run = SyncRun.objects.latest("pk")
    assert (run.webhooks["missing"], run.webhooks["recreated"]) == (["orders/paid"], ["orders/paid"])
    incident = Incident.objects.get(rule="webhook_removed", resolved_at__isnull=True)
    said = describe(incident)
    assert "orders/paid" in said.summary and "re-created orders/paid" in said.summary
    assert "removed after" in said.summary  # since the last check that found it

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    incident.refresh_from_db()
    assert incident.resolved_at is not None


def test_a_typed_in_connection_s_webhooks_are_not_checked(standin, shopify_shop, clock):
    shopify_shop.connection.connected_via = "typed"
    shopify_shop.connection.save()
    standin.remove_subscription(SHOP, "ORDERS_PAID")

    run_sync(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert SyncRun.objects.get().webhooks == {}
    assert "ORDERS_PAID" not in _topics(shopify_shop)


def test_a_disabled_woocommerce_webhook_is_re_enabled_once_with_an_incident(standin, woo_site, clock):
    standin.disable_webhook(SITE, "order.created")

    run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    created = next(w for w in woo_site.webhooks if w["topic"] == "order.created")
    assert created["status"] == "active"
    incident = Incident.objects.get(rule="webhook_disabled")
    assert "re-enabled order.created" in describe(incident).summary

    # Disabled again: its deliveries keep failing, so it is left disabled and the incident stays open.
    standin.disable_webhook(SITE, "order.created")
    run_sync(woo_site.connection.pk, trigger="nightly", sleep=clock.sleep)

    assert created["status"] == "disabled"
    run = SyncRun.objects.latest("pk")
    assert run.webhooks["left_disabled"] == [f"order.created (webhook {created['id']})"]
    assert Incident.objects.get(rule="webhook_disabled").resolved_at is None
    puts = [path for method, path in standin.calls if method == "PUT"]
    assert len(puts) == 1
