"""The only writer of the outcome log. Request bodies are stored as text with every shopper's address
hashed (brands.privacy; docs/decisions.md, "What the outcome log records"); keys never (only a prefix)."""

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from django.db import connection
from django.utils import timezone

from brands.privacy import keep_body, redact_value
from config.lib.sql import InsertStatement
from health.log.models import OutcomeEvent, RefusedDeliveryCount, UnresolvedHostCount
from health.log.rollup import move_counted_event


@dataclass
class EventRecord:
    """Everything the log keeps about one request."""

    endpoint: str
    outcome: str
    http_status: int
    received_at: datetime
    request_id: str = ""
    brand_id: int | None = None
    order_id: str = ""
    is_test: bool = False
    key_prefix: str = ""
    request_body: str | None = None  # the body as kept (brands.privacy.keep_body)
    response_body: object = None
    warnings: list = field(default_factory=list)
    answered_outcome: str = ""  # a replayed event's fault as answered at the time
    # When the row is written; empty means now, and a replayed event must leave it empty so the roll-up's
    # safety lag covers it. Tests set it to control time.
    recorded_at: datetime | None = None

    @classmethod
    def of(
        cls,
        result,
        *,
        endpoint: str,
        received_at: datetime,
        request_id: str,
        body: bytes | str | None = None,
        body_parsed: bool = True,
        key_prefix: str = "",
        extra_warnings: tuple = (),
    ) -> "EventRecord":
        """The log row of a service's `attribution.outcomes.Result`: the one way a result becomes a row.

        `body` is the request body as received (or as the spool kept it); `body_parsed` says whether it
        read as JSON (kept whole) or not (kept as a preview).
        """
        return cls(
            endpoint=endpoint,
            outcome=str(result.outcome),
            http_status=result.http_status,
            received_at=received_at,
            request_id=request_id,
            brand_id=result.brand_id,
            order_id=result.order_id,
            is_test=result.is_test,
            key_prefix=key_prefix,
            request_body=keep_body(body, preview=not body_parsed),
            # An answer may echo what was sent (a code, a host): no address is stored there either.
            response_body=redact_value(result.body()),
            warnings=[*result.warnings, *extra_warnings],
        )

    def as_json(self) -> dict:
        """A JSON-safe copy for the spool (attribution.durability.spool.keep_record)."""
        data = asdict(self)
        data["received_at"] = self.received_at.isoformat()
        data["recorded_at"] = self.recorded_at.isoformat() if self.recorded_at else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> "EventRecord":
        recorded = data.get("recorded_at")
        return cls(
            **{
                **data,
                "received_at": datetime.fromisoformat(data["received_at"]),
                "recorded_at": datetime.fromisoformat(recorded) if recorded else None,
            }
        )


class Receipt:
    """A request as the outcome log keeps it, before its result is known (EventRecord.of's keywords),
    handed to the service that answers it: the service writes the request's outcome row in the same
    statement as its own rows (attribution.orders.store), and marks the result `recorded`."""

    def __init__(self, **request):
        self.request = request

    def event(self, result) -> EventRecord:
        return EventRecord.of(result, **self.request)


_insert_event = InsertStatement(OutcomeEvent)


def row_values(event: EventRecord) -> dict:
    """The outcome log row of `event`, column by column (attribute names): what `record` writes, and what
    attribution.orders.store writes in the same statement as the event's own rows."""
    return {
        "brand_id": event.brand_id,
        "endpoint": event.endpoint,
        "outcome": event.outcome,
        "http_status": event.http_status,
        "order_id": (event.order_id or "")[:255],
        "is_test": event.is_test,
        "received_at": event.received_at,
        "recorded_at": event.recorded_at or timezone.now(),
        "request_id": event.request_id,
        "key_prefix": event.key_prefix,
        "request_body": event.request_body,
        "response_body": event.response_body,
        "warnings": event.warnings,
        "has_warnings": bool(event.warnings),
        "answered_outcome": event.answered_outcome,
    }


def record(event: EventRecord) -> int:
    """Write one outcome log row (one INSERT) and return its id. Raises on database failure; the caller spools."""
    return _insert_event(**row_values(event))


# The outcomes that answer a fault of the service rather than the request (attribution.outcomes' insert_failed
# and handler_error): the one list of them. The outcome log sits below attribution, so it names them as text.
FAULTS = ("insert_failed", "handler_error")


def record_resolution(event: EventRecord, *, answered: str = "") -> int:
    """Record the real outcome of an event replayed from the spool, as one row per event, counted once.

    The caller was answered `answered` (a fault) when the event arrived, and that answer may already be a
    row. The real outcome is then written over that row, which keeps what was answered, and the row's
    count moves from the fault to the real outcome if the roll-up had counted it. Without such a row, a new
    one says both. A row the first attempt wrote after all (its INSERT reached the database late) is not
    written twice. Runs inside the replay's transaction.
    """
    if event.request_id:
        same_request = OutcomeEvent.objects.filter(
            request_id=event.request_id, received_at=event.received_at, endpoint=event.endpoint
        )
        written = same_request.filter(outcome=event.outcome).values_list("id", "answered_outcome").first()
        if written is not None:
            # Written on arrival with the event's own rows (one statement), but the caller was answered a
            # fault: its answer never came back. The row says so, as a resolved fault's row does.
            if answered in FAULTS and not written[1]:
                OutcomeEvent.objects.filter(pk=written[0]).update(answered_outcome=answered)
            return written[0]
        fault = same_request.filter(outcome__in=FAULTS).select_for_update().order_by("id").first()
        if fault is not None:
            move_counted_event(
                fault,
                outcome=event.outcome,
                brand_id=event.brand_id,
                is_test=event.is_test,
                warned=bool(event.warnings),
            )
            OutcomeEvent.objects.filter(pk=fault.pk).update(
                outcome=event.outcome,
                http_status=event.http_status,
                brand_id=event.brand_id,
                order_id=(event.order_id or fault.order_id)[:255],
                is_test=event.is_test,
                key_prefix=event.key_prefix or fault.key_prefix,
                request_body=fault.request_body or event.request_body,
                response_body=event.response_body,
                warnings=event.warnings,
                has_warnings=bool(event.warnings),
                answered_outcome=fault.outcome,
            )
            return fault.pk
    event.answered_outcome = answered if answered in FAULTS else ""
    return record(event)


def count_unresolved_host(host: str, *, at: datetime) -> None:
    """Count, instead of storing, one event of no brand that is over its address's limit (docs/health.md,
    "Events of no brand"): one UPSERT of its host's counter for the hour."""
    _count_in_hour(UnresolvedHostCount, {"host": host[:253]}, at=at)


def count_refused_delivery(*, brand_id: int, connection_id: int, at: datetime) -> None:
    """Count, instead of storing, one refused delivery of a connection beyond the few an hour its brand's log
    keeps (health.log.models.RefusedDeliveryCount): one UPSERT of the connection's counter for the hour."""
    _count_in_hour(RefusedDeliveryCount, {"brand_id": brand_id, "connection_id": connection_id}, at=at)


def _count_in_hour(model, keys: dict, *, at: datetime) -> None:
    """One more in the counter of `keys` and the hour of `at` (its unique key is keys + hour)."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    columns = [qn(model._meta.get_field(name).column) for name in keys]
    hour_, count_ = qn("hour"), qn("count")
    hour = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    field = model._meta.get_field("hour")
    conflict = ", ".join([*columns, hour_])
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({conflict}, {count_}) VALUES ({', '.join(['%s'] * (len(keys) + 1))}, 1) "
            f"ON CONFLICT ({conflict}) DO UPDATE SET {count_} = {table}.{count_} + 1",
            [*keys.values(), field.get_db_prep_save(hour, connection)],
        )
