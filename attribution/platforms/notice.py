"""What one of a storefront platform's deliveries asks once verified and read.

- `OrderNotice` and its `PlatformOrder`: what one verified delivery asks about one order, in no platform's
  shape. The receiver makes the delivery's notice; the platform's `read` (attribution.platforms.platform.Platform)
  returns it asking something (`OrderNotice.asking`); the recording (attribution.platforms.recording) does what it
  asks. A notice is spooled as JSON when the database is away, and the replay runs it again.
- The helpers the platform modules read their orders with (JSON body, amounts, timestamps, flags, addresses),
  and the answers a notice gets whatever it asked (`result_of`, `answered_200`, `unreadable`).

No database here.
"""

import codecs
import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import orjson

from attribution.orders.lines import NO_LINES, OrderLines, lines_as_json, lines_from_json
from attribution.outcomes import Outcome, Result
from attribution.parsing import (
    FieldError,
    holds_unstorable_text,
    parse_amount,
    parse_bool,
    parse_currency,
    parse_order_id,
    parse_timestamp,
    shown_order_id,
)
from brands.emails import EmailHash, is_disposable, verdict
from brands.privacy import HASHED_PREFIX, hashed


class Action(StrEnum):
    RECORD = "record"  # Shopify orders/create and orders/paid; a paid WooCommerce order.created
    RECORD_OR_FOLLOW = "record_or_follow"  # a paid WooCommerce order.updated: record it the first time
    FOLLOW = "follow"  # Shopify orders/updated: the amount, or a cancel once cancelled or fully refunded
    CANCEL = "cancel"  # Shopify orders/cancelled; WooCommerce order.deleted, or cancelled or refunded
    IGNORE = "ignore"  # any other topic, or an order not paid yet


@dataclass
class PlatformOrder:
    """A platform's order as the service reads it, whatever the platform; values unjudged, as sent."""

    order_id: object  # as the connection's brand names its orders (the platform's id, or its name)
    amount: object  # the amount the connection counts, as sent ("59.90")
    currency: object
    is_test: bool = False
    is_returning_customer: bool = False
    codes: list = field(default_factory=list)  # every discount code, in the platform's order
    clicks: list = field(default_factory=list)  # [where, click id] candidates, the most trusted first
    email: str | None = None  # "sha256:<hash>" (brands.privacy.hashed): the address never leaves the receiver
    cancelled: bool = False  # cancelled, fully refunded or voided
    placed_at: datetime | None = None
    # The platform's updated_at: an older version arriving after a newer one is ignored.
    changed_at: datetime | None = None
    # The platform's names of the fields read, for the answers: {"order_id": "id", "amount": "subtotal_price"}.
    names: dict = field(default_factory=dict)
    referring_site: str = ""  # issue 38: the site that referred the shopper, as sent (the code_leak rule)
    lines: OrderLines = NO_LINES  # issue 56: its line items, read once by the platform's module


@dataclass
class OrderNotice:
    """What one verified delivery asks about one order, in no platform's shape (the delivery itself, the signed
    request and its PlatformDelivery row, is the receiver's). Spooled as JSON when the database is away."""

    endpoint: str  # the outcome log's endpoint: "shopify", "woocommerce"
    platform: str  # as answers name it: "Shopify", "WooCommerce"
    connection_id: int
    brand_id: int
    host: str  # the connection's property: the order's host
    delivery_id: str
    topic: str
    action: Action
    order: PlatformOrder | None = None
    refusal: list | None = None  # [outcome, sentence] when the body could not be read as an order
    note: str = ""  # why an ignored delivery is ignored
    warnings: list = field(default_factory=list)
    # A cancel whose body cannot prove the order (WooCommerce's order.deleted carries only an id): done only
    # for an order the same connection delivered before.
    own_orders_only: bool = False
    # The platform's sync brought the order (attribution.platforms.sync): what the first step of its trace says.
    synced: str = ""

    def asking(
        self,
        action: Action,
        order: PlatformOrder | None = None,
        *,
        note: str = "",
        refusal=None,
        own_orders_only: bool = False,
    ) -> "OrderNotice":
        """This delivery's notice once its platform read it: what it asks, the order, or why nothing
        (`own_orders_only`: act only on an order this connection delivered). A new notice; this one is unchanged."""
        # The shallow copy dataclasses.replace makes, without its walk over the fields and a second __init__:
        # ~10k instructions against ~28k, once per delivery (docs/performance.md).
        asked = object.__new__(type(self))
        asked.__dict__.update(self.__dict__)
        asked.action, asked.order, asked.note, asked.refusal = action, order, note, refusal
        asked.own_orders_only = own_orders_only
        return asked

    def order_id_shown(self) -> str:
        return shown_order_id(self.order.order_id if self.order else None)

    def as_json(self) -> dict:
        data = asdict(self)
        if self.order is not None:
            for name in ("placed_at", "changed_at"):
                moment = getattr(self.order, name)
                data["order"][name] = moment.isoformat() if moment else None
            data["order"]["amount"] = _text(self.order.amount)
            # The throwaway-domain verdict the hash carries (brands.emails): JSON keeps only the hash's text.
            data["order"]["email_disposable"] = verdict(self.order.email)
            data["order"]["order_id"] = _text(self.order.order_id)
            data["order"]["lines"] = lines_as_json(self.order.lines)
        return data

    @classmethod
    def from_json(cls, data: dict) -> "OrderNotice":
        data = dict(data)
        order = data.pop("order", None)
        if order is not None:
            for name in ("placed_at", "changed_at"):
                order[name] = datetime.fromisoformat(order[name]) if order.get(name) else None
            if order.pop("email_disposable", False) and order.get("email"):
                order["email"] = EmailHash(order["email"], disposable=True)
            order = PlatformOrder(**{**order, "lines": lines_from_json(order.get("lines"))})
        return cls(**{**data, "action": Action(data["action"]), "order": order})


def _text(value):
    return str(value) if isinstance(value, Decimal) else value


# Reading a platform's order (the platform modules' helpers).


def loads_order(raw: bytes):
    """A platform's JSON body: UTF-8 (a leading BOM allowed), no NaN or Infinity, nesting at most 1,024 deep.
    Parsed by orjson: a Shopify order of 6.6 KB costs 0.2M instructions there against 0.5M in the standard
    library's json (docs/performance.md). Unlike an order event's (attribution.parsing.loads_strict) a key
    named twice is not refused: the platforms write their own bodies. A number with a fraction arrives as a
    float: the amount read from it goes through `amount_of`."""
    document = orjson.loads(raw.removeprefix(codecs.BOM_UTF8))
    # Only \u escapes can produce what no text column holds (U+0000); orjson refuses an unpaired surrogate.
    if b"\\u" in raw and holds_unstorable_text(document):
        raise ValueError("a string holds \\u0000")
    return document


def amount_of(value):
    """An amount as the field rule reads it: a JSON number with a fraction (a float here) as the Decimal of
    its shortest spelling, 59.9 for 59.90; anything else as sent."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def body_digest(body: bytes) -> str:
    """A delivery's body as a short id, where the platform's own delivery id is not enough."""
    return hashlib.sha256(body).hexdigest()[:32]


def moment(value):
    """A platform's timestamp (ISO 8601, UTC without an offset), or None when it cannot be read."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_timestamp(value)
    except FieldError:
        return None


def email_kept(*values) -> str | None:
    """The first address given, as the service keeps it (its hash); the address itself goes no further."""
    for value in values:
        if isinstance(value, str) and "@" in value:
            # issue 38: the throwaway-domain verdict is decided here, before the address is hashed.
            return EmailHash(hashed(value), disposable=is_disposable(value))
        if isinstance(value, str) and value.startswith(HASHED_PREFIX):  # as the outcome log kept it (what-if)
            return EmailHash(value)
    return None


def flag(value) -> bool:
    try:
        return parse_bool(value)
    except FieldError:
        return False


def as_list(value) -> list:
    return value if isinstance(value, list) else []


# What a notice is answered, whatever it asked: the result in the notice's brand, 200 for an order the service
# cannot read (its retry would bring the same payload), the field rules' refusals worded in the platform's own
# names for the fields. The recording and following (attribution.platforms.recording, following) both answer with these.


def result_of(notice: OrderNotice, outcome: Outcome, text: str, *, order_id: str | None = None) -> Result:
    return Result(
        outcome,
        text,
        brand_id=notice.brand_id,
        order_id=notice.order_id_shown() if order_id is None else order_id,
        is_test=bool(notice.order and notice.order.is_test),
        warnings=list(notice.warnings),
    )


def answered_200(result: Result) -> Result:
    """An order the service cannot read is answered 200 on a platform's receiver: its retry would bring the
    same payload (docs/decisions.md, "Storefront platforms: the deliveries' answers")."""
    if result.http_status >= 400:
        result.status = 200
    return result


def unreadable(notice: OrderNotice, *, zero_amount: bool) -> Result | None:
    """The order id, amount and currency by the order confirmation's field rules, in its order, worded with
    the platform's names for them; None when all three can be read."""
    return judged_values(notice, zero_amount=zero_amount)[0]


def judged_values(notice: OrderNotice, *, zero_amount: bool) -> tuple[Result | None, tuple]:
    """The order id, amount and currency as the order confirmation's field rules read them (a plain decimal
    number for the amount, as the API's: issue 55, finding 10), or the refusal of the first that fails, worded
    with the platform's name for it."""
    order = notice.order
    values = []
    for name, outcome, rule in (
        ("order_id", Outcome.INVALID_ORDER_ID, parse_order_id),
        ("amount", Outcome.INVALID_ORDER_AMOUNT, lambda value: parse_amount(value, allow_zero=zero_amount)),
        ("currency", Outcome.INVALID_PARAMS, parse_currency),
    ):
        value = getattr(order, name)
        try:
            values.append(rule(value))
        except FieldError as exc:
            problem = "is missing" if value is None else str(exc)
            return refused(notice, outcome, f"The order's {order.names.get(name, name)}", problem), ()
    return None, tuple(values)


def refused(notice: OrderNotice, outcome: Outcome, name: str, problem: str) -> Result:
    return answered_200(result_of(notice, outcome, f"{name} {problem}."))
