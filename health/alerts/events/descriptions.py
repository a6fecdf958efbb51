"""What the incidents of the events' rules, the capture rule and the service-side rule say (docs/alerts.md;
health.alerts.events.rules opens them): title, summary, fix and the matching events, from the figures that
opened them. Pure."""

from datetime import UTC

from attribution.outcomes import OUTCOMES, Outcome
from attribution.outcomes.endpoints import Endpoint
from attribution.outcomes.endpoints import label as endpoint_label
from health.alerts.events.rules import HANDOFF, HANDOFF_SUBJECT
from health.alerts.findings import Description
from health.alerts.models import Incident

Rule = Incident.Rule

SILENCE_FIX = (
    "Check that the confirmation snippet still fires on your order confirmation page (a theme or checkout "
    "update often drops it), and that the page's address is still one of your registered properties."
)
SILENCE_WEBHOOK_FIX = (
    "Check your shop's connection on the setup page: a signing secret changed in the shop and not here makes "
    "every delivery invalid_signature, and a shop whose webhook failed too often stops sending it (Shopify: "
    "Settings, Notifications, Webhooks; WooCommerce: Settings, Advanced, Webhooks)."
)
SPIKE_FIX = "Open the matching events: each outcome's page says what to change."
CAPTURE_FIX = (
    "Open the reconciliation: each missing order says whether it never arrived or was refused, and why. Check "
    "that the confirmation snippet still fires on every checkout path (a theme or checkout update, a new "
    "payment method's thank-you page), then apply the reconciliation to recover the missing commissions."
)
SERVICE_FIX = (
    "A fault of this service, not of the brands: the events are kept in the spool and replayed. Check the "
    "logs for 'database unavailable' or 'handler error', and that replay_spool runs (docs/operations.md)."
)


def describe(incident: Incident) -> Description:
    """What an incident of the events' rules, the capture rule or the service-side rule says."""
    c = incident.counts or {}
    day = incident.opened_at.astimezone(UTC).date().isoformat()
    if incident.rule == Rule.SILENCE and incident.subject == HANDOFF_SUBJECT:
        label = endpoint_label(c["via"]) if c.get("via") else "your shop's webhook"
        since = (
            f"for {_duration(c['silent_minutes'])}"
            if c.get("silent_minutes") is not None
            else "in the kept log"
        )
        return Description(
            f"Orders stopped: {label}",
            f"{c['handoffs']} order confirmations of the last hour were handed off to {label}, but no "
            f"order has come by it {since}: their commissions wait for it.",
            SILENCE_WEBHOOK_FIX,
            {"endpoint": Endpoint.ORDER_CONFIRMATION, "outcome": HANDOFF, "ns": "live"},
        )
    if incident.rule == Rule.SILENCE:
        via = c.get("via") or Endpoint.ORDER_CONFIRMATION  # older incidents watched order confirmations only
        if via == Endpoint.ORDER_CONFIRMATION:
            title, what, fix = "Order confirmations stopped", "live order confirmation", SILENCE_FIX
        else:
            label = endpoint_label(via)
            title, what, fix = f"Orders stopped: {label}", f"live order by {label}", SILENCE_WEBHOOK_FIX
        return Description(
            title,
            f"No {what} for {_duration(c['silent_minutes'])} when it opened, while about "
            f"{c['usual_orders']:g} usually arrive in those hours of the day.",
            fix,
            {"endpoint": via, "ns": "live"},
        )
    if incident.rule == Rule.SPIKE:
        top = ", ".join(f"{code} ({n})" for code, n in c.get("top", []))
        fixes = [OUTCOMES[Outcome(code)].fix for code, _ in c.get("top", [])[:1]]
        return Description(
            "Problem spike",
            f"{c['needs_action']} of {c['orders']} live order confirmations in the last hour ({c['percent']:g} %) "
            f"need your action: {top}.",
            fixes[0] if fixes else SPIKE_FIX,
            {"endpoint": Endpoint.ORDER_CONFIRMATION, "ns": "live", "from": day, "to": day}
            | ({"outcome": c["top"][0][0]} if c.get("top") else {}),
        )
    if incident.rule == Rule.NEW_PROBLEM:
        code = incident.subject
        info = OUTCOMES.get(Outcome(code)) if code in {str(o) for o in Outcome} else None
        return Description(
            f"New problem: {code}",
            f"{code} ({info.label if info else code}) occurred {c['events_24h']} times in 24 hours and never in "
            "the 7 days before.",
            info.fix if info else SPIKE_FIX,
            {"outcome": code, "ns": "live"},
        )
    if incident.rule == Rule.CAPTURE:
        basis = (
            "the median of your earlier reconciliations"
            if c.get("from_history")
            else "your rules' starting normal"
        )
        return Description(
            "Fewer orders arriving than your order book holds",
            f"Reconciliation {c['run']} found {c['received']} of its book's {c['book_orders']} completed orders "
            f"received here ({c['rate_percent']:g} %), below your normal of {c['normal_percent']:g} % ({basis}).",
            CAPTURE_FIX,
            {"endpoint": Endpoint.ORDER_CONFIRMATION, "ns": "live"},
        )
    failures = ", ".join(f"{code} {n}" for code, n in c.get("failures", {}).items()) or "none"
    return Description(
        "Service-side fault",
        f"Service-side outcomes in the last hour: {failures}; {c.get('spool_waiting', 0)} event(s) in the spool, "
        f"the oldest waiting {_duration(c.get('spool_oldest_minutes', 0))}.",
        SERVICE_FIX,
        {},
    )


def _duration(minutes: int) -> str:
    if minutes < 120:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"
