"""The one writer of an order confirmation's rows: the order, its commission when tracked, and (from the
API) the request's outcome row, durable together before the answer.

On PostgreSQL that is one statement: data-modifying CTEs insert the order, with its unique key deciding
duplicate_order (ON CONFLICT DO NOTHING), its commission and the outcome row, so one round trip and one
commit carry the event, where separate statements took two to six and two commits (docs/performance.md).
Elsewhere (SQLite, the zero-setup default; not for PostgreSQL, whose transaction a refused INSERT would
abort) the same rows go in one transaction through config.lib.statements. Both paths run the same tests; duplicates and races are proven on PostgreSQL.
"""

import dataclasses
import json
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction

from brands.privacy import redact_value
from config.lib.statements import Columns, InsertStatement
from health.log.models import OutcomeEvent
from health.log.recording import EventRecord, record, row_values

from .models import Commission, Order
from .outcomes import Result


@dataclass
class OrderRows:
    """What an order confirmation decided to store, not yet written."""

    order: dict  # Order values by attribute name
    commission: dict | None  # Commission values but its order, when tracked
    duplicate: Result  # the answer instead, when the brand already sent this order id


def write_order(rows: OrderRows, *, event: EventRecord | None = None) -> bool:
    """Store the order (with its commission) and `event`'s outcome row; False when the order id was already
    received: then nothing of the order is stored and the outcome row written is the duplicate's.

    Raises DatabaseError when the database cannot take it; nothing is half-written then.
    """
    db = connections[DEFAULT_DB_ALIAS]  # once: each use of django.db.connection looks it up again
    if db.vendor == "postgresql":
        return _write_in_one_statement(db, rows, event)
    return _write_in_one_transaction(rows, event)


def duplicate_event(rows: OrderRows, event: EventRecord) -> EventRecord:
    """The outcome row of `event`'s request when its order turns out to be a duplicate."""
    answer = rows.duplicate
    return dataclasses.replace(
        event,
        outcome=str(answer.outcome),
        http_status=answer.http_status,
        response_body=redact_value(answer.body()),
    )


# --- PostgreSQL -----------------------------------------------------------------------------------

_ORDER = Columns(Order, "o_")
_COMMISSION = Columns(Commission, "c_")
_EVENT = Columns(OutcomeEvent, "e_")
_statements: dict = {}


def _statement(*, tracked: bool, recorded: bool) -> str:
    key = (tracked, recorded)
    if key not in _statements:
        parts = [
            f"""WITH new_order AS (
    INSERT INTO {Order._meta.db_table} ({_ORDER.names}) VALUES ({_ORDER.placeholders()})
    ON CONFLICT (brand_id, order_id, is_test) DO NOTHING
    RETURNING id
)"""
        ]
        if tracked:
            parts.append(f"""new_commission AS (
    INSERT INTO {Commission._meta.db_table} ({_COMMISSION.names})
    SELECT {_COMMISSION.placeholders(order_id="new_order.id")} FROM new_order
)""")
        if recorded:
            # The answered outcome, or the duplicate's when the order id was taken: d_ parameters.
            either = {
                name: f"CASE WHEN EXISTS (SELECT FROM new_order) THEN %(e_{name})s::{cast} "
                f"ELSE %(d_{name})s::{cast} END"
                for name, cast in (
                    ("outcome", "varchar"),
                    ("http_status", "smallint"),
                    ("response_body", "jsonb"),
                )
            }
            parts.append(f"""event AS (
    INSERT INTO {OutcomeEvent._meta.db_table} ({_EVENT.names}) SELECT {_EVENT.placeholders(**either)}
)""")
        _statements[key] = ",\n".join(parts) + "\nSELECT id FROM new_order"
    return _statements[key]


def _write_in_one_statement(db, rows: OrderRows, event: EventRecord | None) -> bool:
    params = _ORDER.params(rows.order, into={})
    if rows.commission is not None:
        _COMMISSION.params(rows.commission, into=params)
    if event is not None:
        _EVENT.params(row_values(event), into=params)
        duplicate = rows.duplicate
        params["d_outcome"] = str(duplicate.outcome)
        params["d_http_status"] = duplicate.http_status
        params["d_response_body"] = json.dumps(redact_value(duplicate.body()))
    sql = _statement(tracked=rows.commission is not None, recorded=event is not None)
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() is not None


# --- other databases ------------------------------------------------------------------------------

_insert_order = InsertStatement(Order)
_insert_commission = InsertStatement(Commission)


def _write_in_one_transaction(rows: OrderRows, event: EventRecord | None) -> bool:
    with transaction.atomic():
        # SQLite (and MySQL) keep a transaction usable after an INSERT its unique key refused, so the
        # duplicate needs no savepoint before its own outcome row is written in the same transaction.
        try:
            order_pk = _insert_order(**rows.order)
        except IntegrityError:
            # The unique key (brand, order id, test) decides duplicates; any other constraint is a fault.
            order = rows.order
            key = {"brand_id": order["brand_id"], "order_id": order["order_id"], "is_test": order["is_test"]}
            if not Order.objects.filter(**key).exists():
                raise
            stored = False
        else:
            if rows.commission is not None:
                _insert_commission(order_id=order_pk, **rows.commission)
            stored = True
        if event is not None:
            record(event if stored else duplicate_event(rows, event))
    return stored
