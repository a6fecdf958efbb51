"""Recording an order a platform's notice brings: the discount code and the click picked from the platform's
candidates, then the order confirmation's decision (attribution.orders.confirmation.confirm_order) with the platform as
its way in (attribution.orders.joins).
"""

from datetime import datetime

from attribution.contract.serializers import OrderConfirmationSerializer
from attribution.models import Order
from attribution.orders import joins
from attribution.orders.confirmation import confirm_order
from attribution.orders.signals import Lookups
from attribution.orders.trace import Signal, StepResult, step
from attribution.orders.whatif import decide_payload_again
from attribution.outcomes import Result
from attribution.parsing import FieldError, is_click_id, parse_order_id
from brands.models import Creator, KnownShopper
from config.lib.statements import SelectStatement
from health.log.recording import Receipt

from .answers import answered_200, unreadable
from .notices import OrderNotice

MAX_CODE_LENGTH = OrderConfirmationSerializer.rules["code"].max_length

# The known shopper with its creator's name, as the decision reads it (attribution.orders.signals.Lookups.shopper):
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


def _claim(notice: OrderNotice, received_at: datetime) -> dict:
    """The delivery's row as attribution.orders.store claims it with the order (its brand and order id come from
    the order's row)."""
    return {
        "connection_id": notice.connection_id,
        "delivery_id": notice.delivery_id[:255],
        "topic": notice.topic[:64],
        "received_at": received_at,
    }


def payload_of(notice: OrderNotice, lookups: "_Remembered") -> dict:
    """The platform's order as the order confirmation's fields: what the decision judges."""
    order = notice.order
    return {
        "orderId": order.order_id,
        "orderAmount": order.amount,
        "currency": order.currency,
        "domain": notice.host,
        "test": order.is_test,
        "is_returning_customer": order.is_returning_customer,
        "code": _pick_code(notice, lookups),
        "customer_email": order.email,
        "clickId": _pick_click(notice, lookups),
        "referring_site": order.referring_site,  # issue 38: read by the decision only for a platform's order
    }


def decide_again(notice: OrderNotice, *, at: datetime) -> tuple[str, list[dict]] | None:
    """What-if of a platform's order (attribution.orders.whatif.decide_payload_again): reads only."""
    lookups = _Remembered()
    return decide_payload_again(payload_of(notice, lookups), at=at, lookups=lookups, via_platform=True)


def record_order(
    notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None, claim: bool = False
) -> Result:
    order = notice.order
    refused = unreadable(notice, zero_amount=False)
    if refused is not None:
        return refused
    lookups = _Remembered()
    payload = payload_of(notice, lookups)
    judged_at = min(order.placed_at, received_at) if order.placed_at else received_at
    if receipt is not None and notice.warnings:
        receipt = Receipt(**{**receipt.request, "extra_warnings": tuple(notice.warnings)})
    result = confirm_order(
        payload=payload,
        received_at=received_at,
        receipt=receipt,
        judged_at=judged_at,
        lookups=lookups,
        via=joins.Via(
            notice.platform,
            order.changed_at,
            claim=_claim(notice, received_at) if claim else None,
            first_step=step(Signal.SYNC, StepResult.RECOVERED, notice.synced) if notice.synced else None,
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
