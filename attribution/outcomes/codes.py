"""Every outcome code with its HTTP status, a plain-language label for the health pages and the fix a brand
can apply (as an order confirmation answers it; attribution.outcomes.endpoints holds what differs by endpoint).
No database here.
"""

from dataclasses import dataclass
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
    # The platforms' calls about a connection (attribution.platforms.connect.views): answered, never recorded.
    APP_REQUEST = "app_request"
    KEYS_RECEIVED = "keys_received"


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
    Outcome.APP_REQUEST: OutcomeInfo(
        200, "The Shopify app's app/uninstalled or compliance request, acted on", recorded=False
    ),
    Outcome.KEYS_RECEIVED: OutcomeInfo(
        200, "WooCommerce's keys checked; they wait for the brand's confirmation", recorded=False
    ),
}

assert set(OUTCOMES) == set(Outcome), "every outcome needs its status, label and fix"

# The codes an outcome log row can hold: the health pages' filters and the admin's list these.
RECORDED = [outcome for outcome in Outcome if OUTCOMES[outcome].recorded]
