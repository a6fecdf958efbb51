"""Recording a storefront platform's delivery once verified and read into an `OrderNotice`: what it asks of
the service, done through the same decision, outcome table and commission writers as the order, cancel and
update events (docs/decisions.md, "Decision order of a platform's delivery").

- `receive`: one transaction per delivery. Its id is taken first (the unique key makes a redelivery, or a
  copy sent at the same moment, change nothing), then its effect and its outcome row. A fault rolls it all
  back and is returned; the receiver spools the notice (attribution.durability.faults) and the replay runs it
  again later.
- Recording an order (`record_order`): the typed order built once (`typed_order`: the discount code and the
  click picked from the platform's candidates, the brand the connection's), then judged by the decision of
  every way in (attribution.orders.confirmation.confirm) with the platform as its way in
  (attribution.orders.joins). Following one (its amount, its cancel) is
  attribution.platforms.following's.
- `decide_again`: the order page's "judged today" of a kept platform order, as a delivery would be judged.
"""

import logging
from datetime import datetime

from django.db import DatabaseError, connections, transaction

from attribution.contract.serializers import OrderConfirmationSerializer
from attribution.models import Order, PlatformDelivery
from attribution.orders import joins
from attribution.orders.confirmation import confirm
from attribution.orders.incoming import IncomingOrder
from attribution.orders.lines import OrderLines
from attribution.orders.lookups import Lookups
from attribution.orders.trace import StepKind, StepResult, step
from attribution.orders.whatif import decide_order_again
from attribution.outcomes import Outcome, Result, say
from attribution.outcomes.endpoints import CHANGE_ENDPOINT
from attribution.parsing import FieldError, is_click_id, parse_order_id
from brands.emails import hash_with_verdict
from brands.models import Creator, KnownShopper, PlatformConnection, ProductCollections
from brands.resolution import resolve_known
from config.lib.sql import InsertStatement, SelectStatement
from health.log.writer import FAULTS, Receipt, record

from .following import follow_order
from .notice import Action, OrderNotice, answered_200, judged_values, loads_order, result_of
from .registry import platform_named

logger = logging.getLogger(__name__)


class _Failed(Exception):
    def __init__(self, result: Result):
        self.result = result


def receive(
    notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None = None, savepoint: bool = True
) -> Result:
    """Do what `notice` asks, once, with its outcome row when `receipt` is given (a replay records its own).
    A fault (insert_failed, handler_error) is returned with nothing written.

    Inside a caller's transaction `savepoint=False` spares the two statements of a savepoint: a fault then
    leaves that transaction to be rolled back whole, as the sync does with its page (sync.acting)."""
    if _in_one_statement(notice, receipt):
        # The common case, a new order: its delivery id, order, commission and outcome row in one statement
        # and one commit (docs/performance.md), where the transaction below takes four statements more. When
        # the order id is already taken (a redelivery, the order's other path) nothing was written, and the
        # transaction decides.
        warnings = list(notice.warnings)
        try:
            result = record_order(notice, received_at=received_at, receipt=receipt, claim=True)
        except joins.NotFirst:
            notice.warnings = warnings
        else:
            if result.recorded or result.outcome in FAULTS:
                return result
            notice.warnings = warnings  # not stored (a field the rules refuse): decided below, as ever
    try:
        with transaction.atomic(savepoint=savepoint):
            if not _first_copy(notice, received_at=received_at):
                result = result_of(
                    notice, Outcome.REDELIVERY, say("platform.redelivery", delivery=notice.delivery_id)
                )
            else:
                result = _act(notice, received_at=received_at, receipt=receipt)
            if result.outcome in FAULTS:
                raise _Failed(result)
            if receipt is not None and not result.recorded:
                record(receipt.event(result))
                result.recorded = True
    except _Failed as failed:
        return failed.result
    except DatabaseError:
        logger.exception("platform delivery failed", extra={"brand_id": notice.brand_id})
        return result_of(notice, Outcome.INSERT_FAILED, say("insert_failed"))
    return result


# The delivery's row, unless its connection already has a verified delivery of this id (None then); the brand
# leads the unique key, as every key of a brand's data does.
_insert_delivery = InsertStatement(
    PlatformDelivery, unless_taken=("brand_id", "connection_id", "delivery_id"), where="verified"
)


def _first_copy(notice: OrderNotice, *, received_at: datetime) -> bool:
    return (
        _insert_delivery(
            brand_id=notice.brand_id,
            connection_id=notice.connection_id,
            delivery_id=notice.delivery_id[:255],
            topic=notice.topic[:64],
            order_id=notice.order_id_shown(),
            verified=True,
            received_at=received_at,
        )
        is not None
    )


def _act(notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None) -> Result:
    if notice.refusal is not None:
        outcome, text = notice.refusal
        return answered_200(result_of(notice, Outcome(outcome), text))
    if notice.action == Action.IGNORE:
        return result_of(notice, Outcome.IGNORED, notice.note)
    action = notice.action
    if action == Action.RECORD_OR_FOLLOW:
        action = Action.FOLLOW if recorded_by_platform(notice) else Action.RECORD
        if action == Action.FOLLOW:
            recorded_as_change(receipt, notice.endpoint)
    if action == Action.RECORD:
        return record_order(notice, received_at=received_at, receipt=receipt)
    return follow_order(notice, received_at=received_at, receipt=receipt, cancel=action == Action.CANCEL)


def recorded_as_change(receipt: Receipt | None, endpoint: str) -> None:
    """A delivery that changes an order (its amount, its cancel) is an outcome row of the platform's change
    endpoint, so the log tells it from an order arriving (attribution.outcomes.endpoints.CHANGE_ENDPOINT)."""
    if receipt is not None:
        receipt.request["endpoint"] = CHANGE_ENDPOINT.get(endpoint, endpoint)


def _in_one_statement(notice: OrderNotice, receipt: Receipt | None) -> bool:
    db = connections["default"]
    return (
        receipt is not None
        and db.vendor == "postgresql"
        and not db.in_atomic_block
        and notice.refusal is None
        and notice.action == Action.RECORD
    )


MAX_CODE_LENGTH = OrderConfirmationSerializer.rules["code"].max_length

# The known shopper with its creator's name, as the decision reads it (attribution.orders.lookups.Lookups.shopper):
# written out, since a platform's order always names the shopper.
_shopper = SelectStatement(
    KnownShopper,
    "shopper",
    f"FROM {KnownShopper._meta.db_table} shopper JOIN {Creator._meta.db_table} creator "
    "ON creator.id = shopper.creator_id WHERE shopper.brand_id = %s AND shopper.email_hash = %s "
    "AND creator.is_active",
    extra={
        "creator_name": "creator.name",
        "creator_email_hash": "creator.email_hash",
    },  # issue 38: self_referral
)


class _Remembered(Lookups):
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


def _pick_code(notice: OrderNotice, lookups: _Remembered) -> str | None:
    """The first code registered to a creator wins; else the first the brand knows (blacklisted, or of an
    inactive creator), whose outcome then says so; else the first (unregistered_code)."""
    codes = []
    for code in notice.order.codes:
        text = str(code).strip() if isinstance(code, str | int) else ""
        if len(text) > MAX_CODE_LENGTH:
            notice.warnings.append(
                f"discount code {text[:20]}… is longer than {MAX_CODE_LENGTH} characters; left out"
            )
        elif text:
            codes.append(text)
    known = [(code, lookups.code(notice.brand_id, code)) for code in codes]
    for wanted in (
        lambda found: found is not None and found.creator_id and not found.is_blacklisted,
        lambda found: found is not None,
    ):
        for code, found in known:
            if wanted(found):
                return code
    return codes[0] if codes else None


def _pick_click(notice: OrderNotice, lookups: _Remembered) -> str | None:
    """The first click id the service minted and knows: a malformed or unknown one is left out with a warning
    (the order is real; only the click cannot count)."""
    for where, click_id in notice.order.clicks:
        text = click_id.strip() if isinstance(click_id, str) else ""
        if not text:
            continue
        if not is_click_id(text):
            notice.warnings.append(f"the click id in {where} could not be read; left out")
        elif lookups.click(text) is None:
            notice.warnings.append(f"the click id {text} in {where} matches no click; left out")
        else:
            return text
    return None


def _claim(notice: OrderNotice) -> dict:
    """The delivery's row as attribution.orders.store claims it with the order (its brand, order id and time of
    receipt come from the order's row)."""
    return {
        "connection_id": notice.connection_id,
        "delivery_id": notice.delivery_id[:255],
        "topic": notice.topic[:64],
    }


def typed_order(notice: OrderNotice, lookups: "_Remembered", values: tuple) -> IncomingOrder:
    """The platform's order as the typed order the decision judges, built once: its id, amount and currency as
    the field rules read them (`values`, notice.judged_values), its code and click picked from the platform's
    candidates, its brand and property the connection's (no lookup of the brand by the host)."""
    order = notice.order
    order_id, amount, currency = values
    code = _pick_code(notice, lookups)
    resolution = resolve_known(notice.host, notice.brand_id)
    return IncomingOrder(
        order_id=order_id,
        amount=amount,
        currency=currency,
        is_test=order.is_test,
        is_returning_customer=order.is_returning_customer,
        click_id=_pick_click(notice, lookups),
        code=code,
        # As the decision reads a shopper: the hash's digits, with the verdict the receiver gave the address.
        email_hash=hash_with_verdict(order.email, order.email) if order.email else None,
        return_window_closes_at=None,
        referring_site=order.referring_site[
            :2048
        ],  # issue 38: read by the decision only for a platform's order
        lines=_with_collections(order.lines, notice, resolution.brand),
        resolution=resolution,
    )


def _with_collections(lines: OrderLines, notice: OrderNotice, brand) -> OrderLines:
    """The lines with their products' collections as the sync keeps them (brands.models.ProductCollections):
    one query for the order's products, none for a brand whose sync keeps none (its cached BrandInfo says so)."""
    if not lines.lines or brand is None or not brand.keeps_collections:
        return lines
    wanted = {line.product_id for line in lines.lines if line.product_id and not line.collections}
    if not wanted:
        return lines
    # product_collections_unique (brand, platform, product_id).
    kept = dict(
        ProductCollections.objects.filter(
            brand_id=notice.brand_id, platform=notice.endpoint, product_id__in=wanted
        ).values_list("product_id", "collections")
    )
    if not kept:
        return lines
    return lines._replace(
        lines=tuple(
            line._replace(collections=tuple(kept[line.product_id])) if line.product_id in kept else line
            for line in lines.lines
        ),
    )


def _decide_notice_again(notice: OrderNotice, *, at: datetime) -> tuple[str, list[dict]] | None:
    """What-if of a platform's order (attribution.orders.whatif.decide_order_again): reads only."""
    refusal, values = judged_values(notice, zero_amount=False)
    if refusal is not None:
        return None
    lookups = _Remembered()
    return decide_order_again(typed_order(notice, lookups, values), at=at, lookups=lookups, via_platform=True)


def record_order(
    notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None, claim: bool = False
) -> Result:
    order = notice.order
    refused, values = judged_values(notice, zero_amount=False)
    if refused is not None:
        return refused
    lookups = _Remembered()
    typed = typed_order(notice, lookups, values)
    judged_at = min(order.placed_at, received_at) if order.placed_at else received_at
    if receipt is not None and notice.warnings:
        receipt = Receipt(**{**receipt.request, "extra_warnings": tuple(notice.warnings)})
    result = confirm(
        typed,
        received_at=received_at,
        receipt=receipt,
        judged_at=judged_at,
        lookups=lookups,
        via=joins.Via(
            notice.platform,
            order.changed_at,
            claim=_claim(notice) if claim else None,
            first_step=step(StepKind.SYNC, StepResult.RECOVERED, notice.synced) if notice.synced else None,
        ),
    )
    if not result.recorded:
        result.warnings = [*result.warnings, *notice.warnings]
    if result.brand_id is None:
        result.brand_id = notice.brand_id
    return answered_200(result)


def recorded_by_platform(notice: OrderNotice) -> bool:
    try:
        order_id = parse_order_id(notice.order.order_id)
    except FieldError:
        return False
    return Order.objects.filter(
        brand_id=notice.brand_id, order_id=order_id, is_test=notice.order.is_test, via_platform=True
    ).exists()


# What-if of an order a storefront platform's webhook brought (the order page's "judged today"): the order
# as the outcome log kept it, read again by its platform's module as its new-order topic reads it, and judged by
# the same decision today, as a delivery would be. Reads only; nothing is written.


def decide_again(
    endpoint: str, body: str, connection: PlatformConnection, *, at: datetime
) -> tuple[str, list[dict]] | None:
    """The outcome and trace the platform's order kept in `body` would get at `at`; None when the platform is
    gone, or the body can no longer be read as an order or no longer reaches a decision."""
    platform = platform_named(endpoint)
    if platform is None:
        return None
    try:
        document = loads_order(body.encode())
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    unread = OrderNotice(
        endpoint=endpoint,
        platform=platform.title,
        connection_id=connection.pk,
        brand_id=connection.brand_id,
        host=connection.property.host,
        delivery_id="",
        topic=platform.new_order_topic,
        action=Action.IGNORE,
    )
    read = platform.read(unread, document=document, connection=connection)
    if read.order is None or read.refusal is not None:
        return None
    return _decide_notice_again(read.asking(Action.RECORD, read.order), at=at)
