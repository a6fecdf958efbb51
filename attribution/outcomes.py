"""Every answer the API can give, in one place: each outcome code with its HTTP status, a plain-language
label for the health pages and the fix a brand can apply; and every sentence an answer carries, with the
one table of fix sentences ("Fix: ..."). Services pick a code and a sentence from here; nothing else
writes a user-facing sentence. No database here.
"""

from dataclasses import dataclass, field, replace
from enum import StrEnum


class Outcome(StrEnum):
    # Events (recorded in the outcome log): the interface's codes and those added where it is silent.
    TRACKED = "tracked"
    NO_ATTRIBUTION = "no_attribution"
    DUPLICATE_ORDER = "duplicate_order"
    SHOPIFY_HANDOFF = "shopify_handoff"
    BLACKLISTED_CODE = "blacklisted_code"
    EXPIRED_CLICK = "expired_click"
    CROSS_BRAND_CLICK = "cross_brand_click"
    PROPERTY_MISMATCH = "property_mismatch"
    UNREGISTERED_PROPERTY = "unregistered_property"
    CLICK_NOT_FOUND = "click_not_found"
    BANNED_USER = "banned_user"
    INVALID_ORDER_AMOUNT = "invalid_order_amount"
    INVALID_ORDER_ID = "invalid_order_id"
    MALFORMED_CLICK_ID = "malformed_click_id"
    UNRESOLVED_DOMAIN = "unresolved_domain"
    UNREGISTERED_CODE = "unregistered_code"
    INSERT_FAILED = "insert_failed"
    HANDLER_ERROR = "handler_error"
    ORDER_NOT_FOUND = "order_not_found"
    ALREADY_CANCELLED = "already_cancelled"
    INVALID_PARAMS = "invalid_params"
    UNAUTHORIZED = "unauthorized"
    RATE_LIMITED = "rate_limited"
    # A storefront platform's webhook deliveries (attribution/platforms/; docs/api.md, "Storefront platforms").
    INVALID_SIGNATURE = "invalid_signature"
    UNKNOWN_SHOP = "unknown_shop"
    CONNECTION_DISABLED = "connection_disabled"
    REDELIVERY = "redelivery"
    ALREADY_RECEIVED = "already_received"
    IGNORED = "ignored"
    # POST /api/Affiliates/review (issue 38, attribution.review.decisions; docs/review.md).
    RELEASED = "released"
    REJECTED = "rejected"
    NOT_HELD = "not_held"
    # Answers that are not events and are never recorded (docs/api.md, "Answers that are not events").
    FOUND = "found"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    OPTIONS = "options"
    PING = "ping"


@dataclass(frozen=True)
class OutcomeInfo:
    status: int
    label: str
    fix: str = ""  # empty: nothing for the brand to change
    service_side: bool = False  # a fault of this service; the caller changes nothing
    recorded: bool = True  # an event of the outcome log; False for answers that are not events

    @property
    def success(self) -> bool:
        return self.status < 400

    @property
    def needs_action(self) -> bool:
        return bool(self.fix) and not self.service_side


_SERVICE_SIDE = "Nothing to change on your side: the event was kept and will be processed."

OUTCOMES: dict[Outcome, OutcomeInfo] = {
    Outcome.TRACKED: OutcomeInfo(200, "Attributed: a commission was created"),
    Outcome.NO_ATTRIBUTION: OutcomeInfo(
        200, "Direct order, nothing to attribute (expected for most traffic)"
    ),
    Outcome.DUPLICATE_ORDER: OutcomeInfo(
        400,
        "Order id already received; this repeat was ignored",
        "Send each order once: fire the confirmation snippet only on the first view of the thank-you page.",
    ),
    Outcome.SHOPIFY_HANDOFF: OutcomeInfo(200, "Handed off to your storefront-platform integration"),
    Outcome.BLACKLISTED_CODE: OutcomeInfo(200, "Discount code is excluded from tracking"),
    Outcome.EXPIRED_CLICK: OutcomeInfo(200, "Click is older than the attribution window"),
    Outcome.CROSS_BRAND_CLICK: OutcomeInfo(200, "Click belongs to another brand"),
    Outcome.PROPERTY_MISMATCH: OutcomeInfo(200, "Order came from another property than the click"),
    Outcome.UNREGISTERED_PROPERTY: OutcomeInfo(
        200,
        "Sending site is under your domain but not registered",
        "Ask your account manager to register this host as a property, or send page_url from a registered one.",
    ),
    Outcome.CLICK_NOT_FOUND: OutcomeInfo(
        400,
        "Click id matches no click",
        "Send the sms_click_id cookie value exactly as stored; do not invent or reuse ids from another site.",
    ),
    Outcome.BANNED_USER: OutcomeInfo(200, "Attributed creator is inactive; no commission"),
    Outcome.INVALID_ORDER_AMOUNT: OutcomeInfo(
        400,
        "Order amount missing or not a usable number",
        "Send a number greater than 0 without symbols or markup, such as 59.90.",
    ),
    Outcome.INVALID_ORDER_ID: OutcomeInfo(
        400,
        "Order id missing or unusable",
        "Send orderId as your order's identifier: a non-empty string or an integer.",
    ),
    Outcome.MALFORMED_CLICK_ID: OutcomeInfo(
        400,
        "Click id could not be read",
        "Send the sms_click_id cookie value exactly as stored: no quotes, no encoding, no cookie name.",
    ),
    Outcome.UNRESOLVED_DOMAIN: OutcomeInfo(
        400,
        "Domain is not one of your properties, or the brand is inactive",
        "On cancel and update, leave domain out or send one of your registered properties; on order "
        "confirmation, page_url or domain must be a registered property. If your brand was deactivated, "
        "ask your account manager.",
    ),
    Outcome.UNREGISTERED_CODE: OutcomeInfo(
        200,
        "Discount code is not registered to a creator",
        "Register the code to the matching creator's account (ask your account manager).",
    ),
    Outcome.INSERT_FAILED: OutcomeInfo(
        200, "Received, saving failed on the service side", _SERVICE_SIDE, service_side=True
    ),
    Outcome.HANDLER_ERROR: OutcomeInfo(
        200, "Processing error on the service side", _SERVICE_SIDE, service_side=True
    ),
    Outcome.ORDER_NOT_FOUND: OutcomeInfo(200, "No commission for this order id (usually not attributed)"),
    Outcome.ALREADY_CANCELLED: OutcomeInfo(200, "Commission was already cancelled"),
    Outcome.INVALID_PARAMS: OutcomeInfo(
        400,
        "Body or a field could not be read",
        "Send a JSON object of at most 64 KiB with every required field in its documented type; "
        "each event's page says which field.",
    ),
    Outcome.UNAUTHORIZED: OutcomeInfo(
        401,
        "Developer key missing, unknown or revoked",
        "Send Authorization: Bearer <developer key> with a current key from your account manager.",
    ),
    Outcome.RATE_LIMITED: OutcomeInfo(
        429,
        "Too many requests",
        "Slow down and retry after the number of seconds in Retry-After.",
    ),
    Outcome.INVALID_SIGNATURE: OutcomeInfo(
        401,
        "Webhook signature missing or wrong: nothing was recorded",
        "Paste the signing secret your platform shows into the connection on your Setup page (Shopify: "
        "Settings → Notifications → Webhooks; WooCommerce: the webhook's Secret). The platform sends the "
        "delivery again, and it counts once the secret matches.",
    ),
    Outcome.UNKNOWN_SHOP: OutcomeInfo(
        401,
        "No connection for the shop that sent this webhook",
        "Add the shop on your Setup page with the exact domain the platform sends: name.myshopify.com for "
        "Shopify, the WordPress site's host for WooCommerce.",
    ),
    Outcome.CONNECTION_DISABLED: OutcomeInfo(
        200,
        "Connection disabled or brand inactive: the delivery changed nothing",
        "Enable the connection on your Setup page, or remove the webhook from your shop; if your brand was "
        "deactivated, ask your account manager.",
    ),
    Outcome.REDELIVERY: OutcomeInfo(200, "Sent again by the platform: the first delivery counted"),
    Outcome.ALREADY_RECEIVED: OutcomeInfo(200, "Order already received from the platform: nothing changed"),
    Outcome.IGNORED: OutcomeInfo(200, "Nothing to do for this topic or order status"),
    Outcome.RELEASED: OutcomeInfo(200, "Hold released: the commission is pending again"),
    Outcome.REJECTED: OutcomeInfo(200, "Hold rejected: the commission was cancelled"),
    Outcome.NOT_HELD: OutcomeInfo(200, "Commission is not held: nothing to decide"),
    Outcome.FOUND: OutcomeInfo(200, "Order found (read API)", recorded=False),
    Outcome.NOT_FOUND: OutcomeInfo(
        404, "No such endpoint", "Check the path against /api/docs/.", recorded=False
    ),
    Outcome.METHOD_NOT_ALLOWED: OutcomeInfo(
        405, "Method not allowed", "Send POST (the read API: GET).", recorded=False
    ),
    Outcome.OPTIONS: OutcomeInfo(200, "What this endpoint takes", recorded=False),
    Outcome.PING: OutcomeInfo(200, "WooCommerce's ping when a webhook is saved", recorded=False),
}

assert set(OUTCOMES) == set(Outcome), "every outcome needs its status, label and fix"

# The codes an outcome log row can hold: the health pages' filters and the admin's list these.
RECORDED = [outcome for outcome in Outcome if OUTCOMES[outcome].recorded]


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


# The same on each storefront platform's receiver (the outcome log's endpoints "shopify" and "woocommerce"). An
# unusable order is answered 200 there, not 400 (a retry would bring the same payload), with these words.
_ON_PLATFORMS: dict[Outcome, dict[str, str]] = {
    Outcome.TRACKED: {
        "label": "Took effect: the order was attributed, or its commission followed the platform"
    },
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
BY_ENDPOINT.update(
    {
        (outcome, endpoint): words
        for endpoint in ("shopify", "woocommerce", "shopify_change", "woocommerce_change")
        for outcome, words in _ON_PLATFORMS.items()
    }
)
# An order the platform's webhook brought, and a change it made (the change endpoints: an update or a cancel).
BY_ENDPOINT.update(
    {
        (Outcome.TRACKED, endpoint): {
            "label": "Order attributed: commission created from the platform's order"
        }
        for endpoint in ("shopify", "woocommerce")
    }
    | {
        (Outcome.TRACKED, endpoint): {
            "label": "Took effect: the commission followed the platform's order (its amount, or its cancel)"
        }
        for endpoint in ("shopify_change", "woocommerce_change")
    }
)


def info(outcome: Outcome | str, endpoint: str = "") -> OutcomeInfo | None:
    """The status, label and fix of `outcome` as `endpoint` answered it; None for a code this service
    never gives (an old row)."""
    try:
        outcome = Outcome(outcome)
    except ValueError:
        return None
    overrides = BY_ENDPOINT.get((outcome, str(endpoint)))
    return replace(OUTCOMES[outcome], **overrides) if overrides else OUTCOMES[outcome]


# --- what each answer says -------------------------------------------------------------------------
#
# The fix of a field that breaks its rule, by the name the brand sent it under ("change.*" for cancel
# and update, whose wording differs where their fields do). An answer about a field reads
# "<field> <what is wrong>. Fix: <this>." (see `field_error`).
FIELD_FIXES: dict[str, str] = {
    "orderId": "send your order's id as a string or an integer",
    "orderAmount": "send a number greater than 0 without symbols or markup, such as 59.90",
    "currency": "send the order's three-letter ISO 4217 code, such as USD",
    "test": "send true or false, or leave it out",
    "is_returning_customer": "send true or false, or leave it out",
    "code": "send the discount code as a string, or leave it out",
    "customer_email": "send the shopper's address as a string, or leave it out",
    "clickId": "send the sms_click_id cookie value exactly as stored (no quotes, no URL encoding, no cookie name)",
    "order_id": "send the orderId of the original order",
    "new_order_amount": "send the order's new total as a plain number such as 49.90",
    "change.currency": "send the order's currency, such as USD",
    "review.decision": 'send "release" or "reject"',
    "review.note": "send a sentence of at most 1000 characters, or leave it out",
}

# Every other sentence, by what happened; `{name}` parts are filled by `say`.
TEXTS: dict[str, str] = {
    # order confirmation
    "order.not_an_object": "The request body must be a JSON object with the order's fields.",
    "order.page_url_missing": "page_url is missing. Fix: send the URL of the page that sends the event, "
    "or your domain in domain.",
    "order.host_unreadable": "{field} could not be read as a web address. "
    "Fix: send a URL such as https://shop.example/thank-you.",
    "order.no_brand": "No registered brand matches {host}. Fix: page_url or domain must match your "
    "registered domain.",
    "order.duplicate": "Order {order_id} was already received; this repeat was ignored. "
    "Fix: send each order once.",
    "order.click_not_found": "clickId matches no click. "
    "Fix: send the sms_click_id cookie value exactly as stored.",
    "order.unreadable_return_window": "returnWindowClosesAt {problem}; the order was kept without it. "
    "Send ISO 8601 such as 2026-12-24T00:00:00Z or Unix epoch seconds.",
    # added to any answer whose event carries a warning
    "answer.warning": " Warning: {warning}",
    "order.tracked": "Order attributed; a commission was created.",
    "order.no_attribution": "Order recorded; it matched no click, discount code or known shopper.",
    "order.shopify_handoff": "Order recorded and handed off to your storefront-platform integration.",
    "order.blacklisted_code": "Order recorded; its discount code is excluded from tracking.",
    "order.expired_click": "Order recorded; the click is older than the attribution window, so no commission.",
    "order.cross_brand_click": "Order recorded; the click belongs to another brand, so no commission.",
    "order.property_mismatch": "Order recorded; the click was made on another of your properties, "
    "so no commission.",
    "order.banned_user": "Order recorded; the attributed account is inactive, so no commission was created.",
    "order.unregistered_property": "Order recorded but not attributed: {host} is not a registered property. "
    "Fix: ask your account manager to register it, or send page_url from a registered property.",
    "order.unregistered_code": "Order recorded, but discount code {code!r} is not registered to a creator. "
    "Fix: register the code to the matching creator's account.",
    # cancel and update
    "change.not_an_object": 'The request body must be a JSON object. Fix: send {{"order_id": ...}}.',
    "change.missing": "Missing required field(s): {missing}. Fix: send {required}.",
    "change.brand_inactive": "The brand of this developer key is inactive. Fix: contact your account manager.",
    "change.domain_not_yours": "{host} is not a registered property of your brand. "
    "Fix: send one of your registered domains, or leave domain out.",
    "change.not_found": "No commission for {namespace} order {order_id} (usually the order was not attributed).",
    "change.already_cancelled": "The commission of order {order_id} was already cancelled.",
    "change.cancelled": "The commission of order {order_id} was cancelled.",
    "change.cancelled_after_payment": "The commission of order {order_id} was cancelled after it was paid; "
    "{clawback}.",
    "change.nothing_to_claw_back": "nothing was left to claw back",
    "change.adjustment": "{amount} {currency} is {what} on your statement of {statement}",
    "change.update_of_cancelled": "The commission of order {order_id} is cancelled; its amount was not changed.",
    "change.other_currency": "currency {sent} differs from the order's {currency}. "
    "Fix: send the new total in the order's currency.",
    "change.updated": "The commission of order {order_id} now follows the new total {total} {currency}.",
    "change.updated_after_payment": " It was already paid: {adjustment}.",
    "change.updated_after_payment_unchanged": " It was already paid; the amount is unchanged, so nothing is billed.",
    "change.cancel_failed": "Event received; cancelling failed on our side and the event is kept for "
    "processing. Nothing to change.",
    # a storefront platform's webhook deliveries (attribution/platforms/, attribution.deliveries)
    "platform.unknown_shop": "No connection for the {platform} shop {shop}. Fix: add it on your Setup page.",
    "platform.no_shop": "The {header} header is missing: no shop to find. Fix: send the webhook from the "
    "platform itself.",
    "platform.no_signature": "The {header} header is missing. Fix: send the webhook from the platform, which "
    "signs each delivery with the connection's secret.",
    "platform.bad_signature": "The {header} header does not match the body signed with the connection's "
    "secret. Fix: paste the signing secret your platform shows into the connection on your Setup page.",
    "platform.stale_signature": "The delivery was signed with the secret this connection replaced on "
    "{replaced}. Fix: paste the secret your platform shows now into the connection on your Setup page.",
    "platform.not_kept": "The delivery could not be verified or kept on our side; the platform sends it again. "
    "Nothing to change.",
    "platform.too_large": "The body is larger than {limit} KiB; nothing was read.",
    "platform.disabled": "The {platform} connection of {shop} is disabled: the delivery changed nothing.",
    "platform.brand_inactive": "The brand of the {platform} shop {shop} is inactive: the delivery changed "
    "nothing.",
    "platform.redelivery": "Delivery {delivery} was already received; this copy changed nothing.",
    "platform.already_received": "Order {order_id} was already received from the platform; nothing changed.",
    "platform.joined_commission": "Order {order_id} joined its order confirmation, whose commission stands.",
    "platform.ignored_topic": "Topic {topic} asks nothing of this service; the delivery was recorded and ignored.",
    "platform.ignored_status": "Order {order_id} is {status}: it is recorded once it is paid (processing or "
    "completed).",
    "platform.not_received": "No {namespace} order {order_id} was received; nothing to follow.",
    "platform.deleted_by_number": "A deleted order's body carries only its id, and this connection names orders "
    "by their number: nothing to cancel. Fix: cancel the order before deleting it, or name orders by id.",
    "platform.unchanged": "Order {order_id}: its counted amount ({total} {currency}) did not change.",
    "platform.older_version": "Order {order_id}: this version ({changed_at}) is older than one already "
    "applied; ignored.",
    "platform.not_json": "The body is not JSON ({problem}).",
    "platform.not_an_order": "The body is not an order object.",
    "platform.ping": "Webhook {webhook} reached the service. Deliveries are verified with the connection's secret.",
    "platform.recorded": "{text} (Recorded from {platform}.)",
    # a reconciliation's changes (attribution.reconciliation.applying)
    "reconciliation.cancelled": "The commission of order {order_id} was cancelled: the order book cancelled it.",
    "reconciliation.updated": "The commission of order {order_id} now follows the order book's total {total} {currency}.",
    # service-side faults, any endpoint
    "insert_failed": "Event received; saving it failed on our side and it is kept for processing. "
    "Nothing to change.",
    "handler_error": "Event received; a processing error occurred on our side and it is kept for processing. "
    "Nothing to change.",
    "server_error": "Processing error on the service side.",
    # what the framework refuses before a service runs
    "auth.missing": "Authorization header missing. Fix: send 'Authorization: Bearer <developer key>'.",
    "auth.malformed": "Authorization must be 'Bearer <developer key>'. "
    "Fix: send the word Bearer, one space, then the key.",
    "auth.unknown_key": "The developer key is unknown or revoked. Fix: send a current key from your account manager.",
    "auth.expired_key": "The developer key has expired. Fix: ask your account manager for a new key.",
    "auth.replayed_key": "The developer key is missing, unknown or revoked.",
    "rate_limited": "Too many requests. Retry after {seconds:.0f} seconds.",
    "body.too_large": "The request body is larger than 64 KiB.",
    "body.unreadable": "{problem} Fix: send a JSON object.",
    "body.replayed_unreadable": "The request body is not valid JSON.",
    "replay.stored_at_arrival": "Stored when it arrived; the answer was lost to a service-side fault.",
    "options": "POST a JSON body to this path; the schema is at /api/schema/ and the docs at /api/docs/.",
    "not_found": "No endpoint at {path}.",
    # the review API (attribution.review.decisions)
    "review.released": "The hold on the commission of order {order_id} was released: it is pending and locks "
    "when its return window closes.",
    "review.rejected": "The hold on the commission of order {order_id} was rejected: the commission was cancelled.",
    "review.not_held": "The commission of order {order_id} is {state}, not held: nothing was decided.",
    "review.failed": "Reviewing failed on our side and nothing was decided. Fix: send the same review again.",
    # the read API
    "read.test_flag": "test must be true or false.",
    "read.brand_inactive": "The brand of this developer key is inactive.",
    "read.not_found": "Your brand has no {namespace} order {order_id}.",
    # the admin's forms
    "link.destination_not_a_property": "{host} is not a registered property of {brand}. "
    "Fix: register it as a property of the brand first, or link to one of its registered hosts.",
}


def say(key: str, **values) -> str:
    """The sentence `key` of TEXTS with its `{name}` parts filled."""
    return TEXTS[key].format(**values)


def field_error(name: str, problem: str, *, fix: str | None = None) -> str:
    """ "<name> <problem>. Fix: <the field's fix>." (FIELD_FIXES, under `fix` when the wording differs)."""
    return f"{name} {problem}. Fix: {FIELD_FIXES[fix or name]}."


@dataclass
class Result:
    """What a service decided for one request: the outcome and one sentence about it.

    The shared view turns it into the answer's envelope and the outcome log row; `status` overrides the
    outcome's usual HTTP status (413 for an oversized body), `data` adds fields to the answer.
    """

    outcome: Outcome
    text: str
    brand_id: int | None = None
    order_id: str = ""
    is_test: bool = False
    warnings: list = field(default_factory=list)
    status: int | None = None
    data: dict | None = None
    recorded: bool = False  # its outcome row is written (with the service's own rows, attribution.store)

    def set(self, outcome: Outcome, text: str) -> "Result":
        """Decide the outcome and its sentence; returns the result, so a service can `return result.set(...)`."""
        self.outcome, self.text = outcome, text
        return self

    @property
    def http_status(self) -> int:
        return self.status or OUTCOMES[self.outcome].status

    @property
    def success(self) -> bool:
        return self.http_status < 400

    def body(self) -> dict:
        text = self.text
        # A warning is said in the answer too, so the caller learns of it without the health pages.
        if self.warnings:
            text += "".join(say("answer.warning", warning=warning) for warning in self.warnings)
        return envelope(success=self.success, outcome=str(self.outcome), text=text, **(self.data or {}))


def envelope(*, success: bool, outcome: str, text: str, **extra) -> dict:
    """Every answer under /api/: success, outcome, and message (success) or error (failure)."""
    return {"success": success, "outcome": outcome, "message" if success else "error": text, **extra}
