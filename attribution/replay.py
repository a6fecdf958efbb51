"""Replay of the durable spool (attribution.durability.spool): each spooled event is processed exactly once, as at
its original receipt time, and its real outcome recorded.

A failure is either passing or permanent. The database away (a connection error, or no answer to a
probe after the failure) is passing: the entry stays for the next run, and the run stops, since the
entries after it would fail the same way. A failure while the database answers is the event's own (a
value no column holds, a bug): after MAX_ATTEMPTS runs it moves to the dead letters, with the reason,
where an account manager retries or drops it (attribution.admin). A value the database refuses as such
(DataError, a constraint) is permanent at once.
"""

import logging
from dataclasses import dataclass

from django.db import DatabaseError, DataError, IntegrityError, ProgrammingError, connection, transaction

from attribution.outcomes.endpoints import Endpoint
from attribution.platforms.notice import OrderNotice
from attribution.platforms.recording import receive as receive_notice
from brands.emails import EmailHash
from brands.models import DeveloperKey
from health.log.writer import FAULTS, EventRecord, record_resolution

from .durability import spool
from .models import AmountChange, CommissionStateChange, DeadLetter, Order, SpoolReplay
from .orders import changes
from .orders.confirmation import confirm_order
from .outcomes import Outcome, Result, say
from .parsing import FieldError, loads_strict, parse_bool, parse_order_id

logger = logging.getLogger(__name__)

REPLAYED = "replayed from the spool: the service could not save this event when it arrived"
STORED_AT_ARRIVAL = (
    "stored when it arrived: the database took the event but its answer never came back, so the caller "
    "was answered as for a fault"
)
MAX_ATTEMPTS = 3


class _StillFailing(Exception):
    """The service answered a fault again: the database refused the event."""


@dataclass
class ReplaySummary:
    replayed: int = 0
    already_done: int = 0
    still_failing: int = 0
    dead_lettered: int = 0
    waiting: int = 0  # left in the spool after the run


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


def _stored_at_arrival(entry: spool.SpooledEntry, result: Result) -> Result:
    """An order confirmation's result, or the outcome it had when the database stored it on arrival.

    A statement the service stopped waiting for can still reach the database and commit (the network
    delivers it late): the order was stored, the caller answered as for a fault. Replay then meets the
    order this very request made (same receipt time, to the microsecond) and records its outcome
    instead of calling its own repeat a duplicate.
    """
    if result.outcome != Outcome.DUPLICATE_ORDER:
        return result
    stored = (
        Order.objects.filter(
            brand_id=result.brand_id,
            order_id=result.order_id,
            is_test=result.is_test,
            received_at=entry.received_at,
        )
        .values_list("outcome", flat=True)
        .first()
    )
    if stored is None:
        return result
    result.set(Outcome(stored), say("replay.stored_at_arrival"))
    result.warnings = [*result.warnings, STORED_AT_ARRIVAL]
    return result


def _applied_at_arrival(entry: spool.SpooledEntry, payload, key: DeveloperKey) -> Result | None:
    """A cancel or update the database applied on arrival though its answer was lost (see above): its
    history row carries the request's id and is not older than the request."""
    if not entry.request_id or not isinstance(payload, dict):
        return None
    try:
        order_id = parse_order_id(payload.get("order_id"))
        is_test = parse_bool(payload.get("test"))
    except FieldError:
        return None
    history = CommissionStateChange if entry.endpoint == Endpoint.CANCEL else AmountChange
    applied = history.objects.filter(
        commission__brand_id=key.brand_id,
        commission__order__order_id=order_id,
        commission__is_test=is_test,
        request_id=entry.request_id,
        changed_at__gte=entry.received_at,
    ).exists()
    if not applied:
        return None
    return Result(
        Outcome.TRACKED,
        say("replay.stored_at_arrival"),
        brand_id=key.brand_id,
        order_id=order_id,
        is_test=is_test,
        warnings=[STORED_AT_ARRIVAL],
    )


def _process(entry: spool.SpooledEntry) -> tuple[Result, DeveloperKey | None, bool]:
    """The event's result, the key it was judged with, and whether its body read as JSON."""
    if entry.event is not None:  # a platform's delivery, verified on arrival: its id makes it count once
        notice = OrderNotice.from_json(entry.event)
        return receive_notice(notice, received_at=entry.received_at), None, entry.body.startswith("{")
    try:
        payload = loads_strict(entry.body.encode("utf-8"))
    except (ValueError, RecursionError):
        return Result(Outcome.INVALID_PARAMS, say("body.replayed_unreadable")), None, False
    if entry.endpoint == Endpoint.ORDER_CONFIRMATION:
        if (
            entry.email_disposable
            and isinstance(payload, dict)
            and isinstance(payload.get("customer_email"), str)
        ):
            # The address's hash with the verdict taken on arrival (the body keeps only the hash).
            payload["customer_email"] = EmailHash(payload["customer_email"], disposable=True)
        result = confirm_order(payload=payload, received_at=entry.received_at)
        return _stored_at_arrival(entry, result), None, True
    key = _key_at_arrival(entry)
    if key is None:
        return Result(Outcome.UNAUTHORIZED, say("auth.replayed_key")), None, True
    applied = _applied_at_arrival(entry, payload, key)
    if applied is not None:
        return applied, key, True
    change = changes.cancel_commission if entry.endpoint == Endpoint.CANCEL else changes.update_commission
    result = change(key=key, payload=payload, received_at=entry.received_at, request_id=entry.request_id)
    return result, key, True


def _replay(entry: spool.SpooledEntry) -> None:
    """Process one entry in one transaction with its ledger row; raises when it failed."""
    with transaction.atomic():
        if entry.kind == spool.RECORD:
            event = EventRecord.from_json(entry.record)
        else:
            result, key, parsed = _process(entry)
            if result.outcome in FAULTS:
                raise _StillFailing(f"the service answered {result.outcome} again")
            if result.brand_id is None and key is not None:
                result.brand_id = key.brand_id
            event = EventRecord.of(
                result,
                endpoint=entry.endpoint,
                received_at=entry.received_at,
                request_id=entry.request_id,
                body=entry.body,
                body_parsed=parsed,
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
        record_resolution(event, answered=entry.answered)


def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


def replay_entry(entry: spool.SpooledEntry) -> str:
    """Replay one spooled entry: "replayed", "already_done", "still_failing" or "dead_lettered"."""
    try:
        if SpoolReplay.objects.filter(spool_id=entry.spool_id).exists():
            spool.remove(entry)
            return "already_done"
        _replay(entry)
    except (DataError, IntegrityError, ProgrammingError) as exc:  # the database refuses this very event
        logger.error("spooled event refused for good", exc_info=True, extra={"spool_id": entry.spool_id})
        spool.dead_letter(entry, reason=_reason(exc))
        return "dead_lettered"
    except Exception as exc:  # noqa: BLE001  (a database away, or a bug: the probe tells which)
        logger.warning("spooled event still failing", exc_info=True, extra={"spool_id": entry.spool_id})
        if not isinstance(exc, DatabaseError | _StillFailing) or _database_answers():
            spool.count_attempt(entry)
            if entry.attempts >= MAX_ATTEMPTS:
                spool.dead_letter(entry, reason=_reason(exc))
                return "dead_lettered"
        return "still_failing"
    spool.remove(entry)
    return "replayed"


def replay_all() -> ReplaySummary:
    """Replay every spooled entry in arrival order; stop at the first the database could not take, since
    the rest would fail the same way. Leaves the count of what still waits for the pages."""
    summary = ReplaySummary()
    entries = spool.pending()
    left = []
    for index, entry in enumerate(entries):
        status = replay_entry(entry)
        setattr(summary, status, getattr(summary, status) + 1)
        if status == "still_failing":
            left.append(entry)
            if not _database_answers():
                left.extend(entries[index + 1 :])
                break
    summary.waiting = len(left)
    try:
        spool.save_backlog(left)
    except DatabaseError:
        logger.warning("spool backlog not saved: the database is away", exc_info=True)
    return summary


def retry_dead_letter(letter: DeadLetter) -> str:
    """Replay a dead letter now (from the admin): "replayed" removes it; a failure keeps it with the new reason."""
    entry = spool.entry_of(letter)
    try:
        if not SpoolReplay.objects.filter(spool_id=entry.spool_id).exists():
            _replay(entry)
    except Exception as exc:  # noqa: BLE001  (kept, with the reason, for the next try)
        logger.warning("dead letter still failing", exc_info=True, extra={"spool_id": entry.spool_id})
        DeadLetter.objects.filter(pk=letter.pk).update(reason=_reason(exc), attempts=letter.attempts + 1)
        return "still_failing"
    letter.delete()
    return "replayed"
