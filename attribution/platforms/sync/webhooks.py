"""The webhooks' health, checked by each sync of a shop whose webhooks the service made itself (docs/health.md,
"The webhooks' health"). Shopify: the app's `webhookSubscriptions` must hold every topic the service subscribed;
a missing one (Shopify removes an app's subscription after 8 failed deliveries in a row) is re-created.
WooCommerce: the service's webhooks must be `active`; a `disabled` one (after failed deliveries) is re-enabled
once, and left disabled if it is found disabled again after that (its deliveries keep failing).

What it found goes on the run (`SyncRun.webhooks`); health opens the incidents.
"""

from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from attribution.models import SyncRun
from brands.models import PlatformConnection

from ..apis.errors import CredentialRevoked, PlatformAPIError
from ..shopify import TOPICS as SHOPIFY_ORDER_TOPICS

# What the service subscribes a shop connected by OAuth to: the order topics it follows, and app/uninstalled.
SHOPIFY_TOPICS = (*sorted(SHOPIFY_ORDER_TOPICS), "app/uninstalled")
# The WooCommerce topics the service makes webhooks for, on a site that handed it read_write keys.
WOOCOMMERCE_TOPICS = ("order.created", "order.updated", "order.deleted")
# A webhook the service re-enabled within this long and found disabled again is left disabled.
REENABLED_MEMORY = timedelta(days=7)


def receiver_url(platform: str) -> str:
    """Where the service receives `platform`'s webhooks (SITE_URL and the receiver's path)."""
    return f"{settings.SITE_URL}{reverse(f'platforms:{platform}')}"


def check(platform: str, api, connection: PlatformConnection) -> dict:
    """Check, and put right, the shop's webhooks; {} when the service made none for it."""
    try:
        if platform == "shopify" and connection.connected_via == "oauth":
            return _shopify(api, connection)
        if platform == "woocommerce" and connection.connected_via == "key_handover":
            if "write" not in (connection.api_scopes or ""):
                return {}  # read keys: the brand made its webhooks by hand, the service cannot see them
            return _woocommerce(api, connection)
    except CredentialRevoked:
        raise
    except PlatformAPIError as exc:
        return {"failed": [f"The webhooks could not be checked: {exc}"]}
    return {}


def _shopify(admin, connection: PlatformConnection) -> dict:
    from ..apis.shopify import topic_enum  # noqa: PLC0415  (the client's spelling of a topic)

    present = {s.get("topic") for s in admin.webhook_subscriptions()}
    missing = [topic for topic in SHOPIFY_TOPICS if topic_enum(topic) not in present]
    found = {"missing": missing, "recreated": [], "failed": [], "last_seen": _last_check(connection)}
    for topic in missing:
        try:
            admin.subscribe(topic, receiver_url("shopify"))
        except PlatformAPIError as exc:
            found["failed"].append(f"{topic}: {exc}")
        else:
            found["recreated"].append(topic)
    return found if missing else {"missing": []}


def _woocommerce(rest, connection: PlatformConnection) -> dict:
    url = receiver_url("woocommerce")
    ours = [w for w in rest.webhooks() if w.get("delivery_url") == url]
    disabled = [w for w in ours if w.get("status") == "disabled"]
    if not disabled:
        return {"disabled": []}
    enabled_before = set(_last_reenabled(connection))
    found = {"disabled": [], "reenabled": [], "left_disabled": [], "failed": []}
    for webhook in disabled:
        label = f"{webhook.get('topic')} (webhook {webhook.get('id')})"
        found["disabled"].append(label)
        if webhook.get("id") in enabled_before:
            found["left_disabled"].append(label)
            continue
        try:
            rest.enable_webhook(webhook["id"])
        except PlatformAPIError as exc:
            found["failed"].append(f"{label}: {exc}")
        else:
            found["reenabled"].append(label)
    found["reenabled_ids"] = [
        w["id"] for w in disabled if f"{w.get('topic')} (webhook {w.get('id')})" in found["reenabled"]
    ]
    return found


def _last_check(connection: PlatformConnection) -> str | None:
    """When the last finished run checked the webhooks (and found them whole or put right)."""
    last = (
        SyncRun.objects.filter(connection=connection, status=SyncRun.Status.DONE)
        .order_by("-started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    return last.isoformat() if last else None


def _last_reenabled(connection: PlatformConnection) -> list:
    """The webhook ids the service re-enabled before: one found disabled again stays so."""
    ids = []
    recent = SyncRun.objects.filter(
        connection=connection,
        started_at__gte=timezone.now() - REENABLED_MEMORY,
        webhooks__has_key="reenabled_ids",
    )
    for found in recent.values_list("webhooks", flat=True):
        ids.extend(found.get("reenabled_ids", []))
    return ids
