"""The outcome log's endpoints, one per way in, with their labels, and what an outcome means on each where it
differs (a tracked cancel cancelled a commission, it attributed nothing).

The log (health.log, below attribution) keeps an endpoint as plain text: its names and labels live here. The
brand's event API and the reconciliation are listed below; each storefront platform adds its two endpoints
when attribution.platforms.registry registers it (`add_platform`), so a new platform changes nothing here.
"""

from dataclasses import dataclass, replace
from enum import StrEnum

from .codes import OUTCOMES, Outcome, OutcomeInfo


class Endpoint(StrEnum):
    """The endpoints of the fixed ways in: the brand's event API and the reconciliation's apply."""

    ORDER_CONFIRMATION = "order_confirmation"
    CANCEL = "cancel"
    UPDATE = "update"
    RECONCILIATION = "reconciliation"
    REVIEW = "review"  # issue 38: POST /api/Affiliates/review (attribution.review.decisions)


@dataclass(frozen=True)
class WayIn:
    """One endpoint of the outcome log."""

    name: str  # as the log keeps it
    label: str  # as the pages show it
    brings_orders: bool = (
        False  # its rows are orders received (the overview's and the portfolio's order figures)
    )
    event_api: bool = False  # the brand's own event API: the overview always shows its line


ENDPOINTS: dict[str, WayIn] = {
    way.name: way
    for way in (
        WayIn(Endpoint.ORDER_CONFIRMATION, "Order confirmation", brings_orders=True, event_api=True),
        WayIn(Endpoint.CANCEL, "Cancel", event_api=True),
        WayIn(Endpoint.UPDATE, "Update", event_api=True),
        WayIn(Endpoint.RECONCILIATION, "Reconciliation"),
        WayIn(Endpoint.REVIEW, "Review decision"),
    )
}
# The brand's own event API (the interface's three endpoints); the other values are the other ways in.
EVENT_ENDPOINTS = tuple(way.name for way in ENDPOINTS.values() if way.event_api)
# The ways an order comes in: the order confirmation, and each storefront platform's order webhook (added as
# the platforms register).
ORDER_ENDPOINTS = [way.name for way in ENDPOINTS.values() if way.brings_orders]
# A platform's endpoint for the deliveries that change an order (an update or a cancel), by its order endpoint.
CHANGE_ENDPOINT: dict[str, str] = {}
# A platform's endpoint for what its nightly sync did (attribution.platforms.sync): an order no webhook delivered,
# recorded, and a cancel, refund or amount the webhooks missed, followed. Not an order endpoint: the webhook's
# silence must still show (the alerts' silence rule), and the sync's capture figures count what it recovered.
SYNC_ENDPOINT: dict[str, str] = {}
# Answers on the order endpoints that are no order of their own: the order was handed to the platform's webhook
# (shopify_handoff), came already (a redelivery, orders/paid after orders/create), there was none to take
# (an ignored topic, a disabled connection), or the delivery was not the shop's (an unknown shop, a
# signature that does not match: refused before anything of it was trusted).
NOT_ORDERS = frozenset(
    {
        "shopify_handoff",
        "redelivery",
        "already_received",
        "ignored",
        "connection_disabled",
        "unknown_shop",
        "invalid_signature",
    }
)


def counts_as_order(endpoint: str, outcome: str) -> bool:
    """Whether an outcome row is an order received (taken or rejected), whichever way it came: the overview's
    and the portfolio's order figures. One order arriving by both ways counts once (its confirmation is
    shopify_handoff)."""
    return endpoint in ORDER_ENDPOINTS and outcome not in NOT_ORDERS


def label(endpoint: str) -> str:
    """The endpoint as the pages name it; an endpoint no way in has any more, by its name."""
    way = ENDPOINTS.get(str(endpoint))
    return way.label if way else str(endpoint)


def choices() -> list[tuple[str, str]]:
    """(name, label) of every endpoint, the event API's first: the events filter, the overview's columns."""
    return [(way.name, way.label) for way in ENDPOINTS.values()]


# Where an outcome means something else on cancel or update than on an order confirmation, by endpoint
# (the outcome log's endpoint values): a tracked cancel cancelled a commission, it attributed nothing.
# Only the label and the fix differ; status and grouping stay the outcome's.
BY_ENDPOINT: dict[tuple[Outcome, str], dict[str, str]] = {
    (Outcome.TRACKED, "cancel"): {"label": "Cancelled: the order's commission was cancelled"},
    (Outcome.TRACKED, "update"): {"label": "Updated: the commission follows the new total"},
    (Outcome.ALREADY_CANCELLED, "update"): {
        "label": "Commission is cancelled; the new total was not applied"
    },
    # An apply of a reconciliation (attribution.reconciliation.applying): the orders it recorded from the
    # book, judged as order confirmations, and the commissions it updated or cancelled.
    (Outcome.TRACKED, "reconciliation"): {
        "label": "Put right from your order book: order recorded with its commission, or commission updated or cancelled"
    },
    (Outcome.NO_ATTRIBUTION, "reconciliation"): {
        "label": "Recorded from your order book; nothing to attribute"
    },
    (Outcome.DUPLICATE_ORDER, "reconciliation"): {
        "label": "Received since the book was uploaded; the book's order was not recorded again",
        "fix": "",
    },
    # The review API (attribution.review.decisions).
    (Outcome.ORDER_NOT_FOUND, "review"): {"label": "No commission for this order id: nothing to review"},
    (Outcome.INVALID_PARAMS, "review"): {
        "label": "Review request could not be read (its body, order_id, decision or note)",
        "fix": 'Send {"order_id": ..., "decision": "release" or "reject", "note": "..."}; the event\'s page '
        "says which field.",
    },
    (Outcome.HANDLER_ERROR, "review"): {
        "label": "Review failed on the service side: nothing was decided",
        "fix": "Send the same review again; a decision already taken answers not_held.",
    },
    (Outcome.INVALID_ORDER_AMOUNT, "update"): {
        "label": "New order amount missing or not a usable number",
        "fix": "Send new_order_amount as a plain number of 0 or more without symbols or markup, such as 49.90.",
    },
}


# On each storefront platform's endpoints an unusable order is answered 200, not 400 (a retry would bring the
# same payload), with these words; a platform may add its own (attribution.platforms.platform.Platform, `words`).
PLATFORM_WORDS: dict[Outcome, dict[str, str]] = {
    Outcome.SHOPIFY_HANDOFF: {"label": "Order recorded from the platform, not attributed"},
    Outcome.INVALID_PARAMS: {
        "label": "The platform's order could not be read (its body, currency or a field)",
        "fix": "A retry would bring the same payload: check that the webhook's format is JSON and that nothing "
        "rewrites its body on the way; the event's page says which field.",
    },
    Outcome.INVALID_ORDER_ID: {
        "label": "The platform's order id is missing or unusable",
        "fix": "Check the connection's order id option on your Setup page; the event's page says what came.",
    },
    Outcome.INVALID_ORDER_AMOUNT: {
        "label": "The platform's order amount is missing, 0 or not a plain number",
        "fix": "An order of 0 earns nothing; otherwise check the connection's amount option on your Setup "
        "page, and that nothing rewrites the webhook's body on the way.",
    },
}
# An order the platform's webhook brought, and a change it made (its change endpoint: an update or a cancel).
PLATFORM_ORDER_WORDS = {
    Outcome.TRACKED: {"label": "Order attributed: commission created from the platform's order"}
}
PLATFORM_CHANGE_WORDS = {
    Outcome.TRACKED: {
        "label": "Took effect: the commission followed the platform's order (its amount, or its cancel)"
    }
}
PLATFORM_SYNC_WORDS = {
    Outcome.TRACKED: {
        "label": "Put right by the sync: an order no webhook delivered recorded with its commission, or a missed "
        "cancel, refund or amount followed"
    },
    Outcome.NO_ATTRIBUTION: {"label": "Recorded by the sync (no webhook delivered it); nothing to attribute"},
    Outcome.ORDER_NOT_FOUND: {
        "label": "The sync read a change of an order never recorded here",
        "fix": "Nothing to do: the order was not paid when it was read, or its amount could not count.",
    },
}


def add_platform(
    name: str, label: str, change_label: str, words: dict | None = None, *, sync_label: str = ""
) -> None:
    """A storefront platform's three endpoints: `name` for the deliveries that bring an order (and those refused
    before their topic was read), `<name>_change` for those that change one, `<name>_sync` for what its sync
    did; `words` are the outcomes the platform words its own way on them (over PLATFORM_WORDS)."""
    change, sync = f"{name}_change", f"{name}_sync"
    ENDPOINTS[name] = WayIn(name, label, brings_orders=True)
    ENDPOINTS[change] = WayIn(change, change_label)
    ENDPOINTS[sync] = WayIn(sync, sync_label or f"{label}: sync")
    if name not in ORDER_ENDPOINTS:
        ORDER_ENDPOINTS.append(name)
    CHANGE_ENDPOINT[name] = change
    SYNC_ENDPOINT[name] = sync
    for endpoint, own in (
        (name, PLATFORM_ORDER_WORDS),
        (change, PLATFORM_CHANGE_WORDS),
        (sync, PLATFORM_SYNC_WORDS),
    ):
        for outcome, said in {**PLATFORM_WORDS, **own, **(words or {})}.items():
            BY_ENDPOINT[(outcome, endpoint)] = said


def remove_platform(name: str) -> None:
    """Undo `add_platform` (a platform registered for a while, as a test does)."""
    change = CHANGE_ENDPOINT.pop(name, f"{name}_change")
    sync = SYNC_ENDPOINT.pop(name, f"{name}_sync")
    for endpoint in (name, change, sync):
        ENDPOINTS.pop(endpoint, None)
        for key in [key for key in BY_ENDPOINT if key[1] == endpoint]:
            del BY_ENDPOINT[key]
    if name in ORDER_ENDPOINTS:
        ORDER_ENDPOINTS.remove(name)


def info(outcome: Outcome | str, endpoint: str = "") -> OutcomeInfo | None:
    """The status, label and fix of `outcome` as `endpoint` answered it; None for a code this service
    never gives (an old row)."""
    try:
        outcome = Outcome(outcome)
    except ValueError:
        return None
    overrides = BY_ENDPOINT.get((outcome, str(endpoint)))
    return replace(OUTCOMES[outcome], **overrides) if overrides else OUTCOMES[outcome]
