"""Every outcome code of the interface (section 4) and decision D2: its HTTP status, a plain-language
label for the health pages, and the fix a brand can apply. No database here.
"""

from dataclasses import dataclass, field
from enum import StrEnum


class Outcome(StrEnum):
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


@dataclass(frozen=True)
class OutcomeInfo:
    status: int
    label: str
    fix: str = ""  # empty: nothing for the brand to change
    service_side: bool = False  # a fault of this service; the caller changes nothing

    @property
    def success(self) -> bool:
        return self.status < 400

    @property
    def needs_action(self) -> bool:
        return bool(self.fix) and not self.service_side


_SERVICE_SIDE = "Nothing to change on your side: the event was kept and will be processed."

OUTCOMES: dict[Outcome, OutcomeInfo] = {
    Outcome.TRACKED: OutcomeInfo(200, "Attributed: commission created or changed"),
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
}

assert set(OUTCOMES) == set(Outcome), "every outcome needs its status, label and fix"


def info(outcome: Outcome) -> OutcomeInfo:
    return OUTCOMES[outcome]


@dataclass
class Result:
    """What a service decided for one request: the outcome and one sentence about it.

    The shared view turns it into the D1 envelope and the outcome log row; `status` overrides the
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

    @property
    def http_status(self) -> int:
        return self.status or OUTCOMES[self.outcome].status

    @property
    def success(self) -> bool:
        return self.http_status < 400

    def body(self) -> dict:
        return envelope(success=self.success, outcome=str(self.outcome), text=self.text, **(self.data or {}))


def envelope(*, success: bool, outcome: str, text: str, **extra) -> dict:
    """The D1 answer: success, outcome, and message (success) or error (failure)."""
    return {"success": success, "outcome": outcome, "message" if success else "error": text, **extra}
