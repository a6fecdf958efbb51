"""Replay of the durable spool (attribution.spool): each spooled event is processed exactly once,
as at its original receipt time, and its real outcome recorded."""

import logging
from dataclasses import dataclass

from django.db import DatabaseError, transaction

from brands.models import DeveloperKey
from health.models import Endpoint
from health.recording import EventRecord, record

from . import changes, orders, spool
from .models import SpoolReplay
from .outcomes import Outcome, Result, say
from .parsing import loads_strict

logger = logging.getLogger(__name__)

REPLAYED = "replayed from the spool: the service could not save this event when it arrived"


class _StillFailing(Exception):
    """The database still cannot take the event: keep it in the spool."""


@dataclass
class ReplaySummary:
    replayed: int = 0
    already_done: int = 0
    still_failing: int = 0


def _key_at_arrival(entry: spool.SpooledEntry) -> DeveloperKey | None:
    """The developer key the request carried, if it was valid when the request arrived."""
    if not entry.key_prefix:
        return None
    key = DeveloperKey.objects.select_related("brand").filter(prefix=entry.key_prefix).first()
    if key is None or key.hashed_key != f"sha512$${entry.key_hash}":
        return None
    if key.revoked and (key.revoked_at is None or key.revoked_at <= entry.received_at):
        return None
    return key


def _process(entry: spool.SpooledEntry) -> tuple[Result, DeveloperKey | None, object]:
    try:
        payload = loads_strict(entry.body)
    except (ValueError, RecursionError):
        return Result(Outcome.INVALID_PARAMS, say("body.replayed_unreadable")), None, None
    if entry.endpoint == Endpoint.ORDER_CONFIRMATION:
        return orders.confirm_order(payload=payload, received_at=entry.received_at), None, payload
    key = _key_at_arrival(entry)
    if key is None:
        return (
            Result(Outcome.UNAUTHORIZED, say("auth.replayed_key")),
            None,
            payload,
        )
    if entry.endpoint == Endpoint.CANCEL:
        result = changes.cancel_commission(
            key=key, payload=payload, received_at=entry.received_at, request_id=entry.request_id
        )
    else:
        result = changes.update_commission(
            key=key, payload=payload, received_at=entry.received_at, request_id=entry.request_id
        )
    return result, key, payload


def replay_entry(entry: spool.SpooledEntry) -> str:
    """Replay one spooled entry; returns "replayed", "already_done" or "still_failing"."""
    if SpoolReplay.objects.filter(spool_id=entry.spool_id).exists():
        spool.remove(entry)
        return "already_done"
    try:
        with transaction.atomic():
            if entry.kind == spool.RECORD:
                event = EventRecord.from_json(entry.record)
            else:
                result, key, payload = _process(entry)
                if result.outcome in (Outcome.INSERT_FAILED, Outcome.HANDLER_ERROR):
                    raise _StillFailing(result.outcome)
                if result.brand_id is None and key is not None:
                    result.brand_id = key.brand_id
                event = EventRecord.of(
                    result,
                    endpoint=entry.endpoint,
                    received_at=entry.received_at,
                    request_id=entry.request_id,
                    request_body=payload,
                    raw_body=entry.body,
                    key_prefix=entry.key_prefix if key is not None else "",
                    extra_warnings=(REPLAYED,),
                )
            # The ledger row and the event's effects commit together: a crash in between replays again.
            SpoolReplay.objects.create(
                spool_id=entry.spool_id,
                brand_id=event.brand_id,
                endpoint=entry.endpoint,
                received_at=entry.received_at,
                outcome=event.outcome,
            )
            record(event)
    except (_StillFailing, DatabaseError):
        logger.warning("spooled event still failing", exc_info=True, extra={"spool_id": entry.spool_id})
        return "still_failing"
    except Exception:  # a bug in processing: keep the event until the code is fixed
        logger.exception("spooled event raised", extra={"spool_id": entry.spool_id})
        return "still_failing"
    spool.remove(entry)
    return "replayed"


def replay_all() -> ReplaySummary:
    """Replay every spooled entry in arrival order; entries the database still refuses stay."""
    summary = ReplaySummary()
    for entry in spool.pending():
        status = replay_entry(entry)
        setattr(summary, status, getattr(summary, status) + 1)
    return summary
