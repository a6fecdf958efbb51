"""The connection alert (docs/alerts.md, "A shop disconnected"): a shop's connection whose platform credential
stopped opening it (the app uninstalled, the token or keys revoked; attribution.platforms.connect and the sync
set `disconnected_at`) opens an incident that says how to connect it again, and it clears once the shop is
connected again, or the connection turned off. One incident per connection (its id the subject). Pure, as
health.alerts.rules, but for `read`, which the evaluation calls once."""

from dataclasses import dataclass
from datetime import UTC, datetime

from brands import known_platforms
from brands.models import PlatformConnection
from health.alerts.models import Incident
from health.alerts.rules import Description, Finding

Rule = Incident.Rule
RULES = frozenset({Rule.DISCONNECTED})
FIX = (
    "Connect the shop again on the setup page (Connect with Shopify or Connect with WooCommerce): until then "
    "the service no longer reads its orders, and a webhook the app made stops coming."
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
    title = known_platforms.title_of(c.get("platform", "")) or "Platform"
    return Description(
        f"Shop disconnected: {c.get('shop', '')}",
        f"{title} {c.get('shop', '')} was disconnected at {c.get('at', '')[:16].replace('T', ' ')} UTC: "
        f"{c.get('reason') or 'its credential no longer opens the shop.'}",
        FIX,
        {"endpoint": c.get("platform", ""), "ns": "live"},
    )
