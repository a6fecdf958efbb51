"""A storefront platform's delivery once verified and read into an `OrderNotice`: what it asks of the service,
done through the same decision, outcome table and commission writers as the order, cancel and update events
(docs/decisions.md, "Decision order of a platform's delivery").

One transaction per delivery: its id is taken first (the unique key makes a redelivery, or a copy sent at
the same moment, change nothing), then its effect and its outcome row. A fault rolls it all back and is
returned; the receiver spools the notice (attribution.durability.spool) and the replay runs it again later.
"""

import logging
from datetime import datetime

from django.db import DatabaseError, connections, transaction

from attribution.models import PlatformDelivery
from attribution.orders import joins
from attribution.outcomes import Outcome, Result, say
from attribution.outcomes.endpoints import CHANGE_ENDPOINT
from config.lib.statements import InsertStatement
from health.log.recording import FAULTS, Receipt, record

from .answers import answered_200, result_of
from .following import follow_order
from .notices import Action, OrderNotice
from .recording import record_order, recorded_by_platform

logger = logging.getLogger(__name__)


class _Failed(Exception):
    def __init__(self, result: Result):
        self.result = result


def receive(notice: OrderNotice, *, received_at: datetime, receipt: Receipt | None = None) -> Result:
    """Do what `notice` asks, once, with its outcome row when `receipt` is given (a replay records its own).
    A fault (insert_failed, handler_error) is returned with nothing written."""
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
        with transaction.atomic():
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
