"""What the sync's incidents say (health.alerts.sync.incidents opens them from a run): their title, summary,
fix and the events that match, from the figures kept on the incident. Pure."""

from datetime import date

from health.alerts.findings import Description
from health.alerts.models import Incident

Rule = Incident.Rule

# The sync's incidents: opened and resolved by the shops' sync (health.alerts.sync.incidents), never by the
# alert evaluation.
SYNC_RULES = frozenset(
    {Rule.SYNC_RECOVERED, Rule.WEBHOOK_REMOVED, Rule.WEBHOOK_DISABLED, Rule.API_VERSION, Rule.SYNC_FAILED}
)
RULES = SYNC_RULES

# The webhook whose failure leaves an order to the sync, by platform: the one that brings a paid order.
PAYING_TOPIC = {"shopify": "orders/paid", "woocommerce": "order.created"}


def describe(incident: Incident) -> Description:
    c = incident.counts or {}
    shop, platform = c.get("shop", "your shop"), c.get("platform", "")
    title = c.get("title", "the platform")
    events = {"endpoint": f"{platform}_sync"} if platform else {}
    if incident.rule == Rule.SYNC_RECOVERED:
        return _recovered(c, shop=shop, platform=platform, title=title, events=events)
    if incident.rule == Rule.WEBHOOK_REMOVED:
        missing = ", ".join(c.get("missing", [])) or "some topics"
        recreated = ", ".join(c.get("recreated", []))
        since = (
            f"after {c['last_seen'][:16].replace('T', ' ')} UTC"
            if c.get("last_seen")
            else "before the first check"
        )
        done = f"The sync re-created {recreated}." if recreated else "The sync could not re-create them."
        return Description(
            f"Webhook subscription removed: {shop}",
            f"{title} no longer held the subscriptions {missing} of {shop}: removed {since} and found missing on "
            f"{c.get('checked_at', '')[:16].replace('T', ' ')} UTC. {done}",
            "Shopify removes an app's subscription after 8 failed deliveries in a row: check that this service's "
            "address answers (a deploy, a certificate, a firewall). The sync recovers the orders meanwhile.",
            events,
        )
    if incident.rule == Rule.WEBHOOK_DISABLED:
        disabled = ", ".join(c.get("disabled", [])) or "a webhook"
        again = c.get("left_disabled", [])
        done = (
            f"Found disabled again after the sync re-enabled it: {', '.join(again)} left disabled."
            if again
            else f"The sync re-enabled {', '.join(c.get('reenabled', [])) or 'none'} once."
        )
        return Description(
            f"Webhook disabled: {shop}",
            f"WooCommerce disabled {disabled} of {shop} after failed deliveries. {done}",
            "WooCommerce never retries a failed delivery and disables a webhook after a few failures: check "
            "that this service's address answers from the site (WooCommerce → Status → Logs shows the "
            "deliveries), then re-enable it under WooCommerce → Settings → Advanced → Webhooks.",
            events,
        )
    if incident.rule == Rule.SYNC_FAILED:
        return Description(
            f"Sync failed: {shop}",
            f"The {title} sync of {shop} stopped: {c.get('reason', 'no reason kept')}",
            "The sync tries again at its next run. When the shop's answers cannot be read, are too large or "
            "never end, check the shop (a plugin rewriting its API's answers, a wrong site address); the limits "
            "are in the operations guide (SYNC_MAX_PAGES_PER_RUN, PLATFORM_ANSWER_MAX_BYTES).",
            events,
        )
    return Description(
        f"{title} API version changed: {shop}",
        f"{title} answered with API version {c.get('served', '?')}, not the pinned {c.get('pinned', '?')}: the "
        "pinned version is retired and a newer one is served in its place.",
        "Read the platform's changelog for the versions between, then move the pinned version "
        "(attribution/platforms/apis/shopify.py, API_VERSION) and run the sync's tests.",
        events,
    )


# What becomes of a webhook that fails, by platform: each incident speaks of its own platform only.
FAILING = {
    "shopify": "Shopify retries a failed delivery for a while, then removes the app's subscription",
    "woocommerce": "WooCommerce never retries a failed delivery and disables the webhook after a few failures",
}


def _recovered(c: dict, *, shop: str, platform: str, title: str, events: dict) -> Description:
    """One incident a shop: its days (an incident of one day, as kept before, reads as one of them)."""
    days = c.get("days") or ([{k: c.get(k) for k in ("day", "recovered", "orders")}] if c.get("day") else [])
    listed = "; ".join(
        f"{d.get('recovered', 0)} of {d.get('orders', 0)} on {_day(d.get('day'))}" for d in days
    )
    topic = PAYING_TOPIC.get(platform, "order")
    failing = FAILING.get(platform, f"{title} stops delivering to an address that keeps failing")
    first, last = (days[0].get("day", ""), days[-1].get("day", "")) if days else ("", "")
    return Description(
        f"Orders only the sync brought: {shop}",
        f"{c.get('recovered', 0)} of {c.get('orders', 0)} orders of {shop} arrived only by the sync"
        f"{' (' + listed + ')' if listed else ''}: the {topic} webhook may be failing.",
        "Nothing is lost: the sync recorded them with their commissions. Check the shop's webhooks on the setup "
        f"page (its sync history lists the orders it recovered), and that {title} can reach this service: "
        f"{failing}.",
        {**events, "from": first, "to": last} if first else events,
    )


def _day(value) -> str:
    try:
        return date.fromisoformat(value).strftime("%b %-d")
    except (TypeError, ValueError):
        return str(value or "the day")
