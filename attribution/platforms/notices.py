"""A platform's delivery once verified and read, in no platform's shape: the `OrderNotice` (what it asks of
the service about one order) and its `PlatformOrder`. Each platform module (attribution/platforms/) reads its
own order shape into these; the service (attribution.platforms.receiving) does what they ask. A notice is
spooled as JSON when the database is away, and the replay runs it again.
"""

from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from attribution.parsing import shown_order_id
from brands.emails import EmailHash, verdict


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
            order = PlatformOrder(**order)
        return cls(**{**data, "action": Action(data["action"]), "order": order})


def _text(value):
    return str(value) if isinstance(value, Decimal) else value
