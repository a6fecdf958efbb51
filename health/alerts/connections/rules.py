"""The connection alert (docs/alerts.md, "A shop disconnected"): a shop's connection whose platform credential
stopped opening it (the app uninstalled, the token or keys revoked; attribution.platforms.connect and the sync
set `disconnected_at`) opens an incident that says how to connect it again, and it clears once the shop is
connected again, or the connection turned off. A shop whose access Shopify refused to renew (its expiring token's
refresh) says so, with how to connect it again. One incident per connection (its id the subject). Pure, as
health.alerts.events.rules, but for `read`, which the evaluation calls once."""

from dataclasses import dataclass
from datetime import UTC, datetime

from attribution.platforms.connect.shopify_tokens import is_refresh_refusal, refusal_detail
from brands import known_platforms
from brands.models import PlatformConnection
from health.alerts.findings import Description, Finding
from health.alerts.models import Incident

Rule = Incident.Rule
RULES = frozenset({Rule.DISCONNECTED})
FIX = (
    "Connect the shop again on the setup page (Connect with Shopify or Connect with WooCommerce): until then "
    "the service no longer reads its orders, and a webhook the app made stops coming."
)

# A refused refresh: the refresh token expired (no call for 90 days), or the app's access was revoked. Shopify
# hands a new pair only to an administrator's consent.
REFRESH_FIX = (
    "Connect the shop again on the setup page (Connect with Shopify): Shopify asks the shop's administrator to "
    "approve the app again and gives the service a new pair of tokens. Until then the service reads none of "
    "its orders; the webhooks keep coming."
)


@dataclass(frozen=True)
class Disconnected:
    connection_id: int
    platform: str
    shop: str
    reason: str
    at: datetime


def read(brand_ids) -> dict[int, dict[int, Disconnected]]:
    """The enabled connections that are disconnected, by brand and connection id (one query)."""
    found: dict[int, dict[int, Disconnected]] = {}
    rows = PlatformConnection.objects.filter(
        brand_id__in=list(brand_ids), disconnected_at__isnull=False, is_enabled=True
    ).values_list("brand_id", "id", "platform", "shop_domain", "disconnect_reason", "disconnected_at")
    for brand_id, pk, platform, shop, reason, at in rows:
        found.setdefault(brand_id, {})[pk] = Disconnected(pk, platform, shop, reason, at)
    return found


def findings(disconnected: dict[int, Disconnected]) -> list[Finding]:
    return [
        Finding(
            Rule.DISCONNECTED,
            str(pk),
            {
                "platform": item.platform,
                "shop": item.shop,
                "reason": item.reason[:500],
                "at": item.at.astimezone(UTC).isoformat(timespec="seconds"),
            },
        )
        for pk, item in sorted(disconnected.items())
    ]


def cleared(incident: Incident, disconnected: dict[int, Disconnected]) -> bool:
    return not incident.subject.isdigit() or int(incident.subject) not in disconnected


def describe(incident: Incident) -> Description:
    c = incident.counts or {}
    if is_refresh_refusal(c.get("reason", "")):
        return Description(
            f"Shopify access not renewed: {c.get('shop', '')}",
            f"Shopify refused to renew the service's access to {c.get('shop', '')} at "
            f"{c.get('at', '')[:16].replace('T', ' ')} UTC ({refusal_detail(c['reason'])}), so the shop was "
            "disconnected and its orders are no longer read.",
            REFRESH_FIX,
            {"endpoint": c.get("platform", ""), "ns": "live"},
        )
    title = known_platforms.title_of(c.get("platform", "")) or "Platform"
    return Description(
        f"Shop disconnected: {c.get('shop', '')}",
        f"{title} {c.get('shop', '')} was disconnected at {c.get('at', '')[:16].replace('T', ' ')} UTC: "
        f"{c.get('reason') or 'its credential no longer opens the shop.'}",
        FIX,
        {"endpoint": c.get("platform", ""), "ns": "live"},
    )
