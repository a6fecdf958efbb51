"""Cancel and update of a commission (POST /api/Affiliates/cancel and /update), authenticated by a
developer key: find the brand's commission of the order under its row lock, then move or change it.

Once paid, a cancel or an update also bills the difference as an adjustment on the next open statement
(attribution.billing). Expected results (not found, already cancelled) are return values.
"""

import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import DatabaseError, connection, transaction

from brands.resolution import Resolution, resolve_host
from config.lib.statements import InsertStatement, save_fields

from . import billing, parsing
from .models import Adjustment, AmountChange, Commission, CommissionStateChange, Order
from .money import commission_amount, money, order_total
from .outcomes import Outcome, Result, say
from .serializers import AmountUpdateSerializer, CancellationSerializer, RequestSerializer

logger = logging.getLogger(__name__)


@dataclass
class _Change:
    """Fields of a cancel or update event after the field rules."""

    order_id: str
    is_test: bool
    new_order_amount: Decimal | None = None
    currency: str | None = None


def _brand_of_key(*, key, payload: dict, result: Result) -> int | None:
    """The key's brand, if active and the optional `domain` is one of its properties
    (docs/decisions.md, "Brand and property resolution")."""
    if not key.brand_is_active:
        result.set(Outcome.UNRESOLVED_DOMAIN, say("change.brand_inactive"))
        return None
    domain = payload.get("domain")
    if domain not in (None, ""):
        resolution = resolve_host(domain) if isinstance(domain, str) else Resolution(host=None)
        if resolution.property_id is None or resolution.brand.id != key.brand_id:
            result.set(
                Outcome.UNRESOLVED_DOMAIN, say("change.domain_not_yours", host=resolution.host or "domain")
            )
            return None
    return key.brand_id


def _parse_change(payload, result: Result, *, request: type[RequestSerializer]) -> _Change | None:
    """The body's checks in the decision order: an object, every required field present, then the field
    rules of `request` in its field order. On a refusal, fill `result` and return None."""
    if not isinstance(payload, dict):
        result.set(Outcome.INVALID_PARAMS, say("change.not_an_object"))
        return None
    try:  # a test event rejected below is still counted apart from live ones
        result.is_test = request.rules["test"].parse(payload.get("test"))
    except parsing.FieldError:
        pass
    missing = [name for name in request.required_names if payload.get(name) is None]
    if missing:
        required = ", ".join(request.required_names)
        result.set(
            Outcome.INVALID_PARAMS, say("change.missing", missing=", ".join(missing), required=required)
        )
        return None
    checked = request.check(payload)
    values = checked.values
    if "order_id" in values:
        result.order_id = values["order_id"]
    if checked.refusal is not None:
        result.set(*checked.refusal)
        return None
    result.is_test = values["test"]
    return _Change(
        order_id=values["order_id"],
        is_test=values["test"],
        new_order_amount=values.get("new_order_amount"),
        currency=values.get("currency"),
    )


# Every cancel and update locks its commission through the order's unique index (the scalar subquery
# keeps the planner from walking all of a brand's commissions when its statistics are stale). Written
# out because a select_for_update queryset with a subquery costs ~0.6 ms of Python to compile per call.
_LOCKED_COMMISSION_SQL = f"""
    SELECT * FROM {Commission._meta.db_table}
    WHERE brand_id = %s AND order_id = (
        SELECT id FROM {Order._meta.db_table} WHERE brand_id = %s AND order_id = %s AND is_test = %s
    )
"""


def _locked_commission(*, brand_id: int, change: _Change) -> Commission | None:
    """The commission of a brand's order, row-locked until the transaction ends (where the database can)."""
    sql = _LOCKED_COMMISSION_SQL
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    params = [brand_id, brand_id, change.order_id, change.is_test]
    return next(iter(Commission.objects.raw(sql, params)), None)


def _not_found(result: Result, change: _Change) -> Result:
    namespace = "test" if change.is_test else "live"
    return result.set(
        Outcome.ORDER_NOT_FOUND, say("change.not_found", namespace=namespace, order_id=change.order_id)
    )


def _change_time(commission: Commission, received_at: datetime) -> datetime:
    """When a change happened: its arrival, but never before the commission's previous change.

    Racing requests are applied in lock order, not arrival order (and workers' clocks differ), so
    the history's order by time stays the order in which the changes were applied.
    """
    return max(received_at, commission.updated_at)


def cancel_commission(*, key, payload, received_at: datetime, request_id: str = "") -> Result:
    """Cancel the commission of an order; a second cancel is already_cancelled.

    A paid commission is cancelled too, and its amount clawed back on the next open statement.
    """
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    change = _parse_change(payload, result, request=CancellationSerializer)
    if change is None:
        return result
    brand_id = _brand_of_key(key=key, payload=payload, result=result)
    if brand_id is None:
        return result
    try:
        with transaction.atomic():
            commission = _locked_commission(brand_id=brand_id, change=change)
            if commission is None:
                return _not_found(result, change)
            if commission.state == Commission.State.CANCELLED:
                return result.set(
                    Outcome.ALREADY_CANCELLED, say("change.already_cancelled", order_id=change.order_id)
                )
            was_paid = commission.state == Commission.State.PAID
            cancelled_at = _change_time(commission, received_at)
            commission.move_to(
                Commission.State.CANCELLED,
                at=cancelled_at,
                cause=CommissionStateChange.Cause.CANCEL,
                request_id=request_id,
            )
            clawback = None
            if was_paid:
                clawback = billing.carry_adjustment(
                    commission,
                    amount=-commission.amount,
                    reason=Adjustment.Reason.CANCEL,
                    at=cancelled_at,
                    request_id=request_id,
                )
    except DatabaseError:
        # The interface lists no insert_failed for cancel: its service-side fault is handler_error.
        logger.exception("cancel failed", extra={"brand_id": brand_id})
        return result.set(Outcome.HANDLER_ERROR, say("change.cancel_failed"))
    if was_paid:
        clawed = _adjustment_text(clawback) if clawback else say("change.nothing_to_claw_back")
        return result.set(
            Outcome.TRACKED, say("change.cancelled_after_payment", order_id=change.order_id, clawback=clawed)
        )
    return result.set(Outcome.TRACKED, say("change.cancelled", order_id=change.order_id))


def _adjustment_text(adjustment: Adjustment) -> str:
    return say(
        "change.adjustment",
        amount=money(abs(adjustment.amount), adjustment.currency),
        currency=adjustment.currency,
        what="clawed back" if adjustment.amount < 0 else "added",
        statement=adjustment.statement.label,
    )


_insert_amount_change = InsertStatement(AmountChange)


def update_commission(*, key, payload, received_at: datetime, request_id: str = "") -> Result:
    """Set a commission's order amount, keeping the old and new amounts in its history.

    Once paid, the difference is billed as an adjustment on the next open statement.
    """
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    change = _parse_change(payload, result, request=AmountUpdateSerializer)
    if change is None:
        return result
    brand_id = _brand_of_key(key=key, payload=payload, result=result)
    if brand_id is None:
        return result
    try:
        with transaction.atomic():
            commission = _locked_commission(brand_id=brand_id, change=change)
            if commission is None:
                return _not_found(result, change)
            if commission.state == Commission.State.CANCELLED:
                return result.set(
                    Outcome.ALREADY_CANCELLED, say("change.update_of_cancelled", order_id=change.order_id)
                )
            if change.currency != commission.currency:
                return result.set(
                    Outcome.INVALID_PARAMS,
                    say("change.other_currency", sent=change.currency, currency=commission.currency),
                )
            new_amount = commission_amount(
                change.new_order_amount, commission.rate_percent, commission.currency
            )
            changed_at = _change_time(commission, received_at)
            _insert_amount_change(
                commission_id=commission.pk,
                brand_id=brand_id,
                old_order_amount=commission.order_amount,
                new_order_amount=change.new_order_amount,
                old_amount=commission.amount,
                new_amount=new_amount,
                changed_at=changed_at,
                request_id=request_id,
            )
            adjustment = None
            if commission.state == Commission.State.PAID:
                adjustment = billing.carry_adjustment(
                    commission,
                    amount=new_amount - commission.amount,
                    reason=Adjustment.Reason.UPDATE,
                    at=changed_at,
                    request_id=request_id,
                )
            commission.order_amount, commission.amount = change.new_order_amount, new_amount
            commission.updated_at = changed_at
            save_fields(commission, ["order_amount", "amount", "updated_at"])
    except DatabaseError:
        logger.exception("update failed", extra={"brand_id": brand_id})
        return result.set(Outcome.INSERT_FAILED, say("insert_failed"))
    text = say(
        "change.updated",
        order_id=change.order_id,
        total=order_total(change.new_order_amount, change.currency),
        currency=change.currency,
    )
    if commission.state == Commission.State.PAID:
        if adjustment:
            text += say("change.updated_after_payment", adjustment=_adjustment_text(adjustment))
        else:
            text += say("change.updated_after_payment_unchanged")
    return result.set(Outcome.TRACKED, text)
