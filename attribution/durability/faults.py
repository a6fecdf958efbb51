"""A fault on our side (insert_failed, handler_error), whichever way in it met: the one fault → spool → record
path (`spool_and_record`). The event API's views and the storefront platforms' receiver both keep the request in
the spool for the replay (attribution.durability.spool), then write its outcome row, which is kept in the spool
too when the database cannot take it (`record_or_keep`, which any other row the database could not take takes too).
"""

import logging

from django.db import DatabaseError

from attribution.durability import spool
from health.log.writer import EventRecord, record

logger = logging.getLogger(__name__)


def spool_and_record(
    event: EventRecord,
    *,
    body: bytes,
    brand_id: int | None,
    authorization: str = "",
    notice: dict | None = None,
    row_when_not_kept: bool = True,
) -> bool:
    """A fault on our side (`event`'s outcome, as answered): keep the request for the replay, then write its
    outcome row, which the replay resolves. False when the spool could not keep the request: its row is then
    written as any other, unless `row_when_not_kept` is False (a platform's receiver answers 503 then, and the
    platform sends the delivery again)."""
    kept = _keep_for_replay(
        event,
        body=body,
        brand_id=brand_id,
        answered=event.outcome,
        authorization=authorization,
        notice=notice,
    )
    if kept or row_when_not_kept:
        record_or_keep(event, kept_for_replay=kept)
    return kept


def _keep_for_replay(
    event: EventRecord,
    *,
    body: bytes,
    brand_id: int | None,
    answered: str,
    authorization: str = "",
    notice: dict | None = None,
) -> bool:
    """Keep the request in the spool for the replay to run again: its body (a platform's: the notice as read on
    arrival, `notice`). False, and logged, when the spool could not keep it."""
    try:
        spool.keep_event(
            endpoint=event.endpoint,
            received_at=event.received_at,
            request_id=event.request_id,
            body=body,
            authorization=authorization,
            brand_id=brand_id,
            answered=answered,
            event=notice,
        )
    except OSError:
        logger.critical(
            "spool write failed: event not kept", exc_info=True, extra={"request_id": event.request_id}
        )
        return False
    return True


def record_or_keep(event: EventRecord, *, kept_for_replay: bool = False) -> None:
    """Write the outcome row. When the database cannot take it, the row waits in the spool, unless the request
    itself does (kept for replay): its replay records its real outcome."""
    try:
        record(event)
    except DatabaseError:
        logger.exception("outcome log write failed", extra={"request_id": event.request_id})
        if kept_for_replay:
            return
        try:
            spool.keep_record(
                endpoint=event.endpoint,
                received_at=event.received_at,
                request_id=event.request_id,
                record=event.as_json(),
            )
        except OSError:
            logger.critical(
                "spool write failed: event not kept", exc_info=True, extra={"request_id": event.request_id}
            )
