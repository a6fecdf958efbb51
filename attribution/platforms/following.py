"""Following an order a platform's notice changes: its counted amount (through the update service) or its
cancel (through the cancel service, attribution.orders.changes), an older version of the order being ignored.
"""

from dataclasses import dataclass
from datetime import datetime

from attribution.models import Commission, CommissionHold, Order, PlatformDelivery
from attribution.money import order_total
from attribution.orders import changes
from attribution.outcomes import Outcome, Result, say
from attribution.parsing import FieldError, parse_amount, parse_currency, parse_order_id
from health.log.writer import FAULTS, Receipt

from .notice import OrderNotice, answered_200, refused, result_of, unreadable


@dataclass(frozen=True)
class _ConnectionKey:
    """The connection acts for its brand as a developer key does in cancel and update (attribution.orders.changes)."""

    brand_id: int
    brand_is_active: bool = True


def _delivered_before(notice: OrderNotice, order_id: str) -> bool:
    """Whether the notice's connection delivered the order before (a verified delivery of another id)."""
    # platform_delivery_time_idx (connection, -received_at): the connection's deliveries.
    return (
        PlatformDelivery.objects.filter(
            brand_id=notice.brand_id, connection_id=notice.connection_id, order_id=order_id, verified=True
        )
        .exclude(delivery_id=notice.delivery_id[:255])
        .exists()
    )


def follow_order(
    notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None, cancel: bool
) -> Result:
    order = notice.order
    refusal = unreadable(notice, zero_amount=True) if not (cancel or order.cancelled) else None
    if refusal is not None:
        return refusal
    try:
        order_id = parse_order_id(order.order_id)
    except FieldError as exc:
        return refused(
            notice, Outcome.INVALID_ORDER_ID, f"The order's {order.names.get('order_id', 'id')}", str(exc)
        )
    if notice.own_orders_only and not _delivered_before(notice, order_id):
        return result_of(notice, Outcome.IGNORED, say("platform.deleted_not_ours", order_id=order_id))
    stored = (
        Order.objects.select_for_update()
        .filter(brand_id=notice.brand_id, order_id=order_id, is_test=order.is_test)
        .only("id", "platform_changed_at")
        .first()
    )
    namespace = "test" if order.is_test else "live"
    if stored is None:
        return result_of(
            notice,
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
        return result_of(
            notice,
            Outcome.IGNORED,
            say("platform.older_version", order_id=order_id, changed_at=order.changed_at.isoformat()),
        )
    key = _ConnectionKey(notice.brand_id)
    request_id = receipt.request.get("request_id", "") if receipt else ""
    if undone:
        result = changes.cancel_commission(
            key=key,
            payload={"order_id": order_id, "test": order.is_test},
            received_at=received_at,
            request_id=request_id,
            receipt=receipt,
            via=CommissionHold.Via.PLATFORM,  # a held commission's holds say the shop cancelled it
        )
    else:
        amount, currency = parse_amount(order.amount, allow_zero=True), parse_currency(order.currency)
        commission = Commission.objects.filter(order_id=stored.pk).values("order_amount", "currency").first()
        if (
            commission is not None
            and commission["order_amount"] == amount
            and commission["currency"] == currency
        ):
            return result_of(
                notice,
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
    result.warnings = [*result.warnings, *notice.warnings]
    return answered_200(result)
