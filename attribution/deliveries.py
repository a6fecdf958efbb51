"""A storefront platform's webhook delivery once verified and read (attribution/platforms/ reads each
platform's shape into a `Delivery`): what it asks of the service, done through the same decision, outcome
table and commission writers as the order, cancel and update events (docs/decisions.md, "Decision order of
a platform's delivery").

One transaction per delivery: its id is taken first (the unique key makes a redelivery, or a copy sent at
the same moment, change nothing), then its effect and its outcome row. A fault rolls it all back and is
returned; the receiver spools the delivery (attribution.spool) and `replay` runs it again later.
"""

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from django.db import DatabaseError, connections, transaction

from brands.models import Creator, KnownShopper
from config.lib.statements import InsertStatement, SelectStatement
from health.log.models import CHANGE_ENDPOINT
from health.log.recording import FAULTS, Receipt, record

from . import changes, joins, orders
from .models import Commission, Order, PlatformDelivery
from .money import order_total
from .outcomes import Outcome, Result, say
from .parsing import FieldError, is_click_id, parse_amount, parse_currency, parse_order_id
from .serializers import OrderConfirmationSerializer

logger = logging.getLogger(__name__)

MAX_CODE_LENGTH = OrderConfirmationSerializer.rules["code"].max_length


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
class Delivery:
    """What one verified delivery asks, in no platform's shape. Spooled as JSON when the database is away."""

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

    def order_id_shown(self) -> str:
        value = self.order.order_id if self.order else None
        return (
            str(value).strip()[:255] if isinstance(value, str | int) and not isinstance(value, bool) else ""
        )

    def as_json(self) -> dict:
        data = asdict(self)
        if self.order is not None:
            for name in ("placed_at", "changed_at"):
                moment = getattr(self.order, name)
                data["order"][name] = moment.isoformat() if moment else None
            data["order"]["amount"] = _text(self.order.amount)
            data["order"]["order_id"] = _text(self.order.order_id)
        return data

    @classmethod
    def from_json(cls, data: dict) -> "Delivery":
        data = dict(data)
        order = data.pop("order", None)
        if order is not None:
            for name in ("placed_at", "changed_at"):
                order[name] = datetime.fromisoformat(order[name]) if order.get(name) else None
            order = PlatformOrder(**order)
        return cls(**{**data, "action": Action(data["action"]), "order": order})


def _text(value):
    return str(value) if isinstance(value, Decimal) else value


class _Failed(Exception):
    def __init__(self, result: Result):
        self.result = result


def receive(delivery: Delivery, *, received_at: datetime, receipt: Receipt | None = None) -> Result:
    """Do what `delivery` asks, once, with its outcome row when `receipt` is given (a replay records its own).
    A fault (insert_failed, handler_error) is returned with nothing written."""
    if _in_one_statement(delivery, receipt):
        # The common case, a new order: its delivery id, order, commission and outcome row in one statement
        # and one commit (docs/performance.md), where the transaction below takes four statements more. When
        # the order id is already taken (a redelivery, the order's other path) nothing was written, and the
        # transaction decides.
        warnings = list(delivery.warnings)
        try:
            result = _record(delivery, received_at=received_at, receipt=receipt, claim=True)
        except joins.NotFirst:
            delivery.warnings = warnings
        else:
            if result.recorded or result.outcome in FAULTS:
                return result
            delivery.warnings = warnings  # not stored (a field the rules refuse): decided below, as ever
    try:
        with transaction.atomic():
            if not _first_copy(delivery, received_at=received_at):
                result = _result(
                    delivery, Outcome.REDELIVERY, say("platform.redelivery", delivery=delivery.delivery_id)
                )
            else:
                result = _act(delivery, received_at=received_at, receipt=receipt)
            if result.outcome in FAULTS:
                raise _Failed(result)
            if receipt is not None and not result.recorded:
                record(receipt.event(result))
                result.recorded = True
    except _Failed as failed:
        return failed.result
    except DatabaseError:
        logger.exception("platform delivery failed", extra={"brand_id": delivery.brand_id})
        return _result(delivery, Outcome.INSERT_FAILED, say("insert_failed"))
    return result


# The delivery's row, unless its connection already has a verified delivery of this id (None then); the brand
# leads the unique key, as every key of a brand's data does.
_insert_delivery = InsertStatement(
    PlatformDelivery, unless_taken=("brand_id", "connection_id", "delivery_id"), where="verified"
)


def _first_copy(delivery: Delivery, *, received_at: datetime) -> bool:
    return (
        _insert_delivery(
            brand_id=delivery.brand_id,
            connection_id=delivery.connection_id,
            delivery_id=delivery.delivery_id[:255],
            topic=delivery.topic[:64],
            order_id=delivery.order_id_shown(),
            verified=True,
            received_at=received_at,
        )
        is not None
    )


def _result(delivery: Delivery, outcome: Outcome, text: str, *, order_id: str | None = None) -> Result:
    return Result(
        outcome,
        text,
        brand_id=delivery.brand_id,
        order_id=delivery.order_id_shown() if order_id is None else order_id,
        is_test=bool(delivery.order and delivery.order.is_test),
        warnings=list(delivery.warnings),
    )


def _answered_200(result: Result) -> Result:
    """An order the service cannot read is answered 200 on a platform's receiver: its retry would bring the
    same payload (docs/decisions.md, "Storefront platforms: the deliveries' answers")."""
    if result.http_status >= 400:
        result.status = 200
    return result


def _act(delivery: Delivery, *, received_at: datetime, receipt: Receipt | None) -> Result:
    if delivery.refusal is not None:
        outcome, text = delivery.refusal
        return _answered_200(_result(delivery, Outcome(outcome), text))
    if delivery.action == Action.IGNORE:
        return _result(delivery, Outcome.IGNORED, delivery.note)
    action = delivery.action
    if action == Action.RECORD_OR_FOLLOW:
        action = Action.FOLLOW if _recorded_by_platform(delivery) else Action.RECORD
        if action == Action.FOLLOW:
            recorded_as_change(receipt, delivery.endpoint)
    if action == Action.RECORD:
        return _record(delivery, received_at=received_at, receipt=receipt)
    return _follow(delivery, received_at=received_at, receipt=receipt, cancel=action == Action.CANCEL)


# --- recording an order -------------------------------------------------------------------------------


# The known shopper with its creator's name, as the decision reads it (attribution.orders.Lookups.shopper):
# written out, since a platform's order always names the shopper.
_shopper = SelectStatement(
    KnownShopper,
    "shopper",
    f"FROM {KnownShopper._meta.db_table} shopper JOIN {Creator._meta.db_table} creator "
    "ON creator.id = shopper.creator_id WHERE shopper.brand_id = %s AND shopper.email_hash = %s "
    "AND creator.is_active",
    extra={"creator_name": "creator.name", "creator_email_hash": "creator.email_hash"},  # issue 38: self_referral
)


class _Remembered(orders.Lookups):
    """The decision's lookups, each read once per delivery: picking the code and the click reads them first."""

    def __init__(self):
        self.clicks, self.codes = {}, {}

    def click(self, click_id):
        if click_id not in self.clicks:
            self.clicks[click_id] = super().click(click_id)
        return self.clicks[click_id]

    def code(self, brand_id, code):
        key = (brand_id, code.lower())
        if key not in self.codes:
            self.codes[key] = super().code(brand_id, code)
        return self.codes[key]

    def shopper(self, brand_id, email_hash):
        found = _shopper([brand_id, email_hash])
        if found is not None:
            found.creator = Creator(
                pk=found.creator_id,
                brand_id=brand_id,
                name=found.creator_name,
                is_active=True,
                email_hash=found.creator_email_hash,
            )
        return found


def _pick_code(delivery: Delivery, lookups: _Remembered) -> str | None:
    """The first code registered to a creator wins; else the first the brand knows (blacklisted, or of an
    inactive creator), whose outcome then says so; else the first (unregistered_code)."""
    codes = []
    for code in delivery.order.codes:
        text = str(code).strip() if isinstance(code, str | int) else ""
        if len(text) > MAX_CODE_LENGTH:
            delivery.warnings.append(
                f"discount code {text[:20]}… is longer than {MAX_CODE_LENGTH} characters; left out"
            )
        elif text:
            codes.append(text)
    known = [(code, lookups.code(delivery.brand_id, code)) for code in codes]
    for wanted in (
        lambda found: found is not None and found.creator_id and not found.is_blacklisted,
        lambda found: found is not None,
    ):
        for code, found in known:
            if wanted(found):
                return code
    return codes[0] if codes else None


def _pick_click(delivery: Delivery, lookups: _Remembered) -> str | None:
    """The first click id the service minted and knows: a malformed or unknown one is left out with a warning
    (the order is real; only the click cannot count)."""
    for where, click_id in delivery.order.clicks:
        text = click_id.strip() if isinstance(click_id, str) else ""
        if not text:
            continue
        if not is_click_id(text):
            delivery.warnings.append(f"the click id in {where} could not be read; left out")
        elif lookups.click(text) is None:
            delivery.warnings.append(f"the click id {text} in {where} matches no click; left out")
        else:
            return text
    return None


def _unreadable(delivery: Delivery, *, zero_amount: bool) -> Result | None:
    """The order id, amount and currency by the order confirmation's field rules, in its order, worded with
    the platform's names for them; None when all three can be read."""
    order = delivery.order
    for name, outcome, rule in (
        ("order_id", Outcome.INVALID_ORDER_ID, parse_order_id),
        ("amount", Outcome.INVALID_ORDER_AMOUNT, lambda value: parse_amount(value, allow_zero=zero_amount)),
        ("currency", Outcome.INVALID_PARAMS, parse_currency),
    ):
        value = getattr(order, name)
        try:
            rule(value)
        except FieldError as exc:
            problem = "is missing" if value is None else str(exc)
            return _refused(delivery, outcome, f"The order's {order.names.get(name, name)}", problem)
    return None


def recorded_as_change(receipt: Receipt | None, endpoint: str) -> None:
    """A delivery that changes an order (its amount, its cancel) is an outcome row of the platform's change
    endpoint, so the log tells it from an order arriving (health.log.models.PLATFORM_ENDPOINTS)."""
    if receipt is not None:
        receipt.request["endpoint"] = CHANGE_ENDPOINT.get(endpoint, endpoint)


def _in_one_statement(delivery: Delivery, receipt: Receipt | None) -> bool:
    db = connections["default"]
    return (
        receipt is not None
        and db.vendor == "postgresql"
        and not db.in_atomic_block
        and delivery.refusal is None
        and delivery.action == Action.RECORD
    )


def _claim(delivery: Delivery, received_at: datetime) -> dict:
    """The delivery's row as attribution.store claims it with the order (its brand and order id come from
    the order's row)."""
    return {
        "connection_id": delivery.connection_id,
        "delivery_id": delivery.delivery_id[:255],
        "topic": delivery.topic[:64],
        "received_at": received_at,
    }


def _record(
    delivery: Delivery, *, received_at: datetime, receipt: Receipt | None, claim: bool = False
) -> Result:
    order = delivery.order
    refused = _unreadable(delivery, zero_amount=False)
    if refused is not None:
        return refused
    lookups = _Remembered()
    payload = {
        "orderId": order.order_id,
        "orderAmount": order.amount,
        "currency": order.currency,
        "domain": delivery.host,
        "test": order.is_test,
        "is_returning_customer": order.is_returning_customer,
        "code": _pick_code(delivery, lookups),
        "customer_email": order.email,
        "clickId": _pick_click(delivery, lookups),
        "referring_site": order.referring_site,  # issue 38: read by the decision only for a platform's order
    }
    judged_at = min(order.placed_at, received_at) if order.placed_at else received_at
    if receipt is not None and delivery.warnings:
        receipt = Receipt(**{**receipt.request, "extra_warnings": tuple(delivery.warnings)})
    result = orders.confirm_order(
        payload=payload,
        received_at=received_at,
        receipt=receipt,
        judged_at=judged_at,
        lookups=lookups,
        via=joins.Via(
            delivery.platform, order.changed_at, claim=_claim(delivery, received_at) if claim else None
        ),
    )
    if not result.recorded:
        result.warnings = [*result.warnings, *delivery.warnings]
    if result.brand_id is None:
        result.brand_id = delivery.brand_id
    return _answered_200(result)


def _recorded_by_platform(delivery: Delivery) -> bool:
    try:
        order_id = parse_order_id(delivery.order.order_id)
    except FieldError:
        return False
    return Order.objects.filter(
        brand_id=delivery.brand_id, order_id=order_id, is_test=delivery.order.is_test, via_platform=True
    ).exists()


# --- following an order: its amount, its cancel -------------------------------------------------------


@dataclass(frozen=True)
class _ConnectionKey:
    """The connection acts for its brand as a developer key does in cancel and update (attribution.changes)."""

    brand_id: int
    brand_is_active: bool = True


def _refused(delivery: Delivery, outcome: Outcome, name: str, problem: str) -> Result:
    return _answered_200(_result(delivery, outcome, f"{name} {problem}."))


def _follow(delivery: Delivery, *, received_at: datetime, receipt: Receipt | None, cancel: bool) -> Result:
    order = delivery.order
    refused = _unreadable(delivery, zero_amount=True) if not (cancel or order.cancelled) else None
    if refused is not None:
        return refused
    try:
        order_id = parse_order_id(order.order_id)
    except FieldError as exc:
        return _refused(
            delivery, Outcome.INVALID_ORDER_ID, f"The order's {order.names.get('order_id', 'id')}", str(exc)
        )
    stored = (
        Order.objects.select_for_update()
        .filter(brand_id=delivery.brand_id, order_id=order_id, is_test=order.is_test)
        .only("id", "platform_changed_at")
        .first()
    )
    namespace = "test" if order.is_test else "live"
    if stored is None:
        return _result(
            delivery,
            Outcome.ORDER_NOT_FOUND,
            say("platform.not_received", namespace=namespace, order_id=order_id),
        )
    undone = cancel or order.cancelled
    if (
        not undone
        and order.changed_at
        and stored.platform_changed_at
        and order.changed_at < stored.platform_changed_at
    ):
        return _result(
            delivery,
            Outcome.IGNORED,
            say("platform.older_version", order_id=order_id, changed_at=order.changed_at.isoformat()),
        )
    key = _ConnectionKey(delivery.brand_id)
    request_id = receipt.request.get("request_id", "") if receipt else ""
    if undone:
        result = changes.cancel_commission(
            key=key,
            payload={"order_id": order_id, "test": order.is_test},
            received_at=received_at,
            request_id=request_id,
            receipt=receipt,
        )
    else:
        amount, currency = parse_amount(order.amount, allow_zero=True), parse_currency(order.currency)
        commission = Commission.objects.filter(order_id=stored.pk).values("order_amount", "currency").first()
        if (
            commission is not None
            and commission["order_amount"] == amount
            and commission["currency"] == currency
        ):
            return _result(
                delivery,
                Outcome.IGNORED,
                say(
                    "platform.unchanged",
                    order_id=order_id,
                    total=order_total(amount, currency),
                    currency=currency,
                ),
            )
        result = changes.update_commission(
            key=key,
            payload={
                "order_id": order_id,
                "new_order_amount": amount,
                "currency": currency,
                "test": order.is_test,
            },
            received_at=received_at,
            request_id=request_id,
            receipt=receipt,
        )
    if (
        order.changed_at
        and result.outcome not in FAULTS
        and (stored.platform_changed_at is None or order.changed_at > stored.platform_changed_at)
    ):
        Order.objects.filter(pk=stored.pk).update(platform_changed_at=order.changed_at)
    result.warnings = [*result.warnings, *delivery.warnings]
    return _answered_200(result)
