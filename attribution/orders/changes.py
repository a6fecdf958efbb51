"""Cancel and update of a commission (POST /api/Affiliates/cancel and /update), authenticated by a
developer key: find the brand's commission of the order under its row lock, then move or change it.

Once paid, a cancel or an update also bills the difference as an adjustment on the next open statement
(attribution.billing). Expected results (not found, already cancelled) are return values.
"""

import logging
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial

from django.db import DatabaseError, connection, transaction

from brands.resolution import Resolution, resolve_host
from config.lib.sql import Row, SelectStatement
from health.log.models import OutcomeEvent
from health.log.writer import Receipt, record, row_values

from ..billing import writers
from ..contract.serializers import AmountUpdateSerializer, CancellationSerializer, RequestSerializer
from ..models import Adjustment, Commission, CommissionHold, CommissionStateChange, Order
from ..money import money, order_total
from ..outcomes import Outcome, Result, say
from ..plans.repricing import reprice

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
    result.is_test = request.asks_for_test(payload)
    missing = [name for name in request.required_names if payload.get(name) is None]
    if missing:
        required = ", ".join(request.required_names)
        result.set(
            Outcome.INVALID_PARAMS, say("change.missing", missing=", ".join(missing), required=required)
        )
        return None
    checked = request.check(payload)
    if checked.refused(result, order_id_field="order_id"):
        return None
    values = checked.values
    result.is_test = values["test"]
    return _Change(
        order_id=values["order_id"],
        is_test=values["test"],
        new_order_amount=values.get("new_order_amount"),
        currency=values.get("currency"),
    )


# Every cancel and update finds its commission through the order's unique index (the scalar subquery
# keeps the planner from walking all of a brand's commissions when its statistics are stale). Written
# out because a queryset with a subquery costs ~0.6 ms of Python to compile per call.
_COMMISSION_OF_ORDER = (
    f"FROM {Commission._meta.db_table} commission WHERE commission.brand_id = %s AND commission.order_id = ("
    f"SELECT id FROM {Order._meta.db_table} WHERE brand_id = %s AND order_id = %s AND is_test = %s)"
)
_commission = SelectStatement(Commission, "commission", _COMMISSION_OF_ORDER)
_locked = SelectStatement(Commission, "commission", _COMMISSION_OF_ORDER + " FOR UPDATE")
# A cancel or update reads its commission without a lock and writes only if the row is still as it was
# read (Commission.move_to, change_amount): one statement on PostgreSQL, with the outcome row. When a
# racing request changed it first, it reads and decides again, and after this many tries waits for the
# row lock instead, as a paid commission's change always does (its adjustment needs the statement's lock).
ATTEMPTS = 3


def _read(*, brand_id: int, change: _Change, locked: bool = False) -> Commission | None:
    """The commission of a brand's order; with `locked`, row-locked until the transaction ends."""
    read = _locked if locked and connection.features.has_select_for_update else _commission
    return read([brand_id, brand_id, change.order_id, change.is_test])


def _not_found(result: Result, change: _Change) -> Result:
    namespace = "test" if change.is_test else "live"
    return result.set(
        Outcome.ORDER_NOT_FOUND, say("change.not_found", namespace=namespace, order_id=change.order_id)
    )


def _change_time(commission: Commission, received_at: datetime) -> datetime:
    """When a change happened: its arrival, but never before the commission's previous change.

    Racing requests are applied in order of their writes, not arrival order (and workers' clocks differ),
    so the history's order by time stays the order in which the changes were applied.
    """
    return max(received_at, commission.updated_at)


def _outcome_row(receipt: Receipt | None, result: Result) -> tuple:
    """The request's outcome row, to be written with the change (none without a receipt)."""
    return (Row(OutcomeEvent, row_values(receipt.event(result))),) if receipt else ()


def _written(result: Result, receipt: Receipt | None) -> Result:
    result.recorded = receipt is not None
    return result


def _written_unless_changed(result: Result, receipt: Receipt | None, write) -> Result | None:
    """`write` the change with the request's outcome row (`alongside`); None when a racing request changed
    the commission first (it is read again)."""
    try:
        write(alongside=_outcome_row(receipt, result))
    except Commission.StateChanged:
        return None
    return _written(result, receipt)


def cancel_commission(
    *,
    key,
    payload,
    received_at: datetime,
    request_id: str = "",
    receipt=None,
    via: str = CommissionHold.Via.CHANGE,
) -> Result:
    """Cancel the commission of an order; a second cancel is already_cancelled. With the API's `receipt`,
    the request's outcome row is written with the cancel (one statement on PostgreSQL). A held commission's
    holds are resolved as cancelled by `via` (the cancel request, or the shop's platform).

    A paid commission is cancelled too, and its amount clawed back on the next open statement.
    """

    def cancel(result: Result, change: _Change, *, brand_id: int, locked: bool) -> Result | None:
        commission = _read(brand_id=brand_id, change=change, locked=locked)
        if commission is None:
            return _not_found(result, change)
        if commission.state == Commission.State.CANCELLED:
            return result.set(
                Outcome.ALREADY_CANCELLED, say("change.already_cancelled", order_id=change.order_id)
            )
        if commission.state == Commission.State.PAID:
            # None when it changed before its lock: read it again
            return _cancel_paid(
                result,
                change,
                brand_id=brand_id,
                received_at=received_at,
                request_id=request_id,
                receipt=receipt,
            )
        result.set(Outcome.TRACKED, say("change.cancelled", order_id=change.order_id))
        return _written_unless_changed(
            result,
            receipt,
            partial(
                commission.move_to,
                Commission.State.CANCELLED,
                at=_change_time(commission, received_at),
                cause=CommissionStateChange.Cause.CANCEL,
                request_id=request_id,
                resolution=CommissionHold.cancelled_with_its_order(via),
            ),
        )

    # The interface lists no insert_failed for cancel: its service-side fault is handler_error.
    fault = (Outcome.HANDLER_ERROR, "change.cancel_failed", "cancel failed")
    return _changed(key=key, payload=payload, request=CancellationSerializer, apply=cancel, fault=fault)


def _changed(*, key, payload, request: type[RequestSerializer], apply, fault: tuple) -> Result:
    """What a cancel and an update share: the body's field rules (`request`), the key's brand, then `apply`
    tried until it holds, without a lock first and under the commission's row lock on the last of ATTEMPTS.
    `apply` returns the result, or None when the commission changed under it. A database error is answered
    `fault`: (its outcome, its sentence, the log's words)."""
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    change = _parse_change(payload, result, request=request)
    if change is None:
        return result
    brand_id = _brand_of_key(key=key, payload=payload, result=result)
    if brand_id is None:
        return result
    try:
        for attempt in range(ATTEMPTS + 1):
            locked = attempt == ATTEMPTS
            with transaction.atomic() if locked else nullcontext():
                done = apply(result, change, brand_id=brand_id, locked=locked)
                if done is not None:
                    return done
        raise Commission.StateChanged("the commission kept changing under a held lock")  # never reached
    except DatabaseError:
        outcome, text, words = fault
        logger.exception(words, extra={"brand_id": brand_id})
        return result.set(outcome, say(text))


def _cancel_paid(result, change, *, brand_id, received_at, request_id, receipt) -> Result | None:
    """Cancel a paid commission and claw its amount back, under the commission's and the statement's row
    locks (attribution.billing), with the outcome row in the same transaction; None when it is no longer
    paid once locked (a racing cancel came first)."""
    with transaction.atomic():
        commission = _read(brand_id=brand_id, change=change, locked=True)
        if commission is None or commission.state != Commission.State.PAID:
            return None
        cancelled_at = _change_time(commission, received_at)
        commission.move_to(
            Commission.State.CANCELLED,
            at=cancelled_at,
            cause=CommissionStateChange.Cause.CANCEL,
            request_id=request_id,
        )
        clawback = writers.carry_adjustment(
            commission,
            amount=-commission.amount,
            reason=Adjustment.Reason.CANCEL,
            at=cancelled_at,
            request_id=request_id,
        )
        clawed = _adjustment_text(clawback) if clawback else say("change.nothing_to_claw_back")
        result.set(
            Outcome.TRACKED, say("change.cancelled_after_payment", order_id=change.order_id, clawback=clawed)
        )
        if receipt is not None:
            record(receipt.event(result))
    return _written(result, receipt)


def _adjustment_text(adjustment: Adjustment) -> str:
    return say(
        "change.adjustment",
        amount=money(abs(adjustment.amount), adjustment.currency),
        currency=adjustment.currency,
        what="clawed back" if adjustment.amount < 0 else "added",
        statement=adjustment.statement.label,
    )


def update_commission(*, key, payload, received_at: datetime, request_id: str = "", receipt=None) -> Result:
    """Set a commission's order amount, keeping the old and new amounts in its history. With the API's
    `receipt`, the request's outcome row is written with the change (one statement on PostgreSQL).

    Once paid, the difference is billed as an adjustment on the next open statement.
    """

    def update(result: Result, change: _Change, *, brand_id: int, locked: bool) -> Result | None:
        commission = _read(brand_id=brand_id, change=change, locked=locked)
        refused = _refusal(result, change, commission)
        if refused is not None:
            return refused
        if commission.state == Commission.State.PAID:
            # None when it changed before its lock: read it again
            return _update_paid(
                result,
                change,
                brand_id=brand_id,
                received_at=received_at,
                request_id=request_id,
                receipt=receipt,
            )
        # issue 56: re-priced with its own plan version, each line keeping its share (docs/plans.md).
        priced = reprice(commission, order_amount=change.new_order_amount)
        new_amount = priced.amount
        result.set(Outcome.TRACKED, _updated_text(change))
        return _written_unless_changed(
            result,
            receipt,
            partial(
                commission.change_amount,
                change.new_order_amount,
                new_amount,
                at=_change_time(commission, received_at),
                request_id=request_id,
                priced=priced,
            ),
        )

    fault = (Outcome.INSERT_FAILED, "insert_failed", "update failed")
    return _changed(key=key, payload=payload, request=AmountUpdateSerializer, apply=update, fault=fault)


def _refusal(result: Result, change: _Change, commission: Commission | None) -> Result | None:
    """The answer when there is nothing to update: no commission, a cancelled one, another currency."""
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
    return None


def _updated_text(change: _Change) -> str:
    return say(
        "change.updated",
        order_id=change.order_id,
        total=order_total(change.new_order_amount, change.currency),
        currency=change.currency,
    )


def _update_paid(result, change, *, brand_id, received_at, request_id, receipt) -> Result | None:
    """Update a paid commission and bill the difference as an adjustment, under the commission's and the
    statement's row locks (attribution.billing), with the outcome row in the same transaction; None when
    it is no longer paid once locked."""
    with transaction.atomic():
        commission = _read(brand_id=brand_id, change=change, locked=True)
        if commission is None or commission.state != Commission.State.PAID:
            return None
        priced = reprice(commission, order_amount=change.new_order_amount)
        new_amount = priced.amount
        changed_at = _change_time(commission, received_at)
        adjustment = writers.carry_adjustment(
            commission,
            amount=new_amount - commission.amount,
            reason=Adjustment.Reason.UPDATE,
            at=changed_at,
            request_id=request_id,
        )
        commission.change_amount(
            change.new_order_amount, new_amount, at=changed_at, request_id=request_id, priced=priced
        )
        text = _updated_text(change)
        if adjustment:
            text += say("change.updated_after_payment", adjustment=_adjustment_text(adjustment))
        else:
            text += say("change.updated_after_payment_unchanged")
        result.set(Outcome.TRACKED, text)
        if receipt is not None:
            record(receipt.event(result))
    return _written(result, receipt)
