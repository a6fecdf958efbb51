"""The one writer of an order confirmation's rows: the order, its commission when tracked, and (from the
API) the request's outcome row, durable together before the answer.

On PostgreSQL that is one statement: data-modifying CTEs insert the order, with its unique key deciding
duplicate_order (ON CONFLICT DO NOTHING), its commission and the outcome row, so one round trip and one
commit carry the event, where separate statements took two to six and two commits (docs/performance.md).
A repeat stores nothing of its order: its outcome row follows in a statement of its own, so the answer to
a repeat is made only for a repeat (made ready for every order, it cost ~35k instructions each).
Elsewhere (SQLite, the zero-setup default; not for PostgreSQL, whose transaction a refused INSERT would
abort) the same rows go in one transaction through config.lib.sql. Both paths run the same tests; duplicates and races are proven on PostgreSQL.
"""

import dataclasses
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction

from brands.privacy import redact_value
from config.lib.sql import Columns, InsertStatement
from health.log.models import OutcomeEvent
from health.log.writer import EventRecord, record, row_values

from ..models import Commission, Order, PlatformDelivery
from ..outcomes import Outcome, Result, say
from ..review import holds as review_holds


@dataclass
class OrderRows:
    """What an order confirmation decided to store, not yet written."""

    order: dict  # Order values by attribute name
    commission: dict | None  # Commission values but its order, when tracked
    warnings: list = dataclasses.field(default_factory=list)  # the request's, said again to a repeat

    def duplicate(self) -> Result:
        """The answer instead, when the brand already sent this order id: the same brand, order and namespace,
        and the same warnings."""
        order_id = self.order["order_id"]
        return Result(
            Outcome.DUPLICATE_ORDER,
            say("order.duplicate", order_id=order_id),
            brand_id=self.order["brand_id"],
            order_id=order_id,
            is_test=self.order["is_test"],
            warnings=self.warnings,
        )


def write_order(rows: OrderRows, *, event: EventRecord | None = None) -> bool:
    """Store the order (with its commission) and `event`'s outcome row; False when the order id was already
    received: then nothing of the order is stored and the outcome row written is the duplicate's.

    Raises DatabaseError when the database cannot take it; nothing is half-written then.
    """
    db = connections[DEFAULT_DB_ALIAS]  # once: each use of django.db.connection looks it up again
    if db.vendor == "postgresql":
        if insert_in_one_statement(db, rows, event) is not None:
            return True
        if event is not None:  # a repeat (its unique key taken): nothing of it stored but its outcome row
            record(duplicate_event(rows, event))
        return False
    return _write_in_one_transaction(rows, event)


def duplicate_event(rows: OrderRows, event: EventRecord) -> EventRecord:
    """The outcome row of `event`'s request when its order turns out to be a duplicate."""
    answer = rows.duplicate()
    return dataclasses.replace(
        event,
        outcome=str(answer.outcome),
        http_status=answer.http_status,
        response_body=redact_value(answer.body()),
    )


# --- PostgreSQL -----------------------------------------------------------------------------------

# The commission's columns that repeat its order's are read from the order's inserted row, not sent twice.
# That keeps the statement within psycopg's cache of parsed statements (at most 50 parameters and 4 KiB,
# psycopg._queries.MAX_CACHED_STATEMENT_*): beyond it psycopg parses the statement again on every execute,
# about 1.1M instructions per tracked order (tests/attribution/test_statement_cache.py holds the limit).
_FROM_ORDER = {
    "order_id": "new_order.id",
    "brand_id": "new_order.brand_id",
    "creator_id": "new_order.creator_id",
    "is_test": "new_order.is_test",
    "order_amount": "new_order.amount",
    "currency": "new_order.currency",
    "created_at": "new_order.received_at",
    "updated_at": "new_order.received_at",
    "attribution": "new_order.attribution",
    "is_returning_customer": "new_order.is_returning_customer",
    # Nothing of a new commission is cancelled, locked, paid or on a statement yet: constants, no parameters
    # (room for the locked conversion's six, attribution.fx).
    "cancelled_at": "NULL::timestamptz",
    "locked_at": "NULL::timestamptz",
    "paid_at": "NULL::timestamptz",
    "statement_id": "NULL::bigint",
    "paid_amount": "NULL::numeric",
}
_ORDER = Columns(Order, "o_")
_COMMISSION = Columns(Commission, "c_", sql=_FROM_ORDER)
# The outcome row is written only with the new order, of the request that brought it: the same brand and
# namespace. (Sent apart, they took the claiming delivery's statement past the 50 parameters.)
_EVENT = Columns(OutcomeEvent, "e_", sql={"brand_id": "new_order.brand_id", "is_test": "new_order.is_test"})
# A platform's delivery id, claimed with the order it brings (attribution.platforms.recording's one-statement
# path), received when the order was.
_DELIVERY = Columns(
    PlatformDelivery,
    "p_",
    sql={
        "brand_id": "new_order.brand_id",
        "order_id": "new_order.order_id",
        "received_at": "new_order.received_at",
        "verified": "true",
    },
)
_statements: dict = {}


def statement(*, tracked: bool, recorded: bool, claim: bool = False, held: bool = False) -> str:
    """The order, its commission when `tracked`, and the outcome row when `recorded`, in one statement: the
    new order's id, or no row when its unique key was taken. Every row is written only with the new order: a
    repeat's answer is decided after it (write_order, attribution.orders.joins). `claim`: the platform
    delivery's id is taken with the new order (p_ parameters). `held` (issue 38): the commission is held for
    review, and its holds are written with it (h_holds, attribution.review.holds)."""
    key = (tracked, recorded, claim, held)
    if key not in _statements:
        parts = [
            f"""WITH new_order AS (
    INSERT INTO {Order._meta.db_table} ({_ORDER.names}) VALUES ({_ORDER.placeholders()})
    ON CONFLICT (brand_id, order_id, is_test) DO NOTHING
    RETURNING id, brand_id, order_id, creator_id, is_test, amount, currency, received_at, attribution,
        is_returning_customer
)"""
        ]
        if claim:
            parts.append(f"""new_delivery AS (
    INSERT INTO {PlatformDelivery._meta.db_table} ({_DELIVERY.names}) SELECT {_DELIVERY.placeholders()} FROM new_order
    ON CONFLICT (brand_id, connection_id, delivery_id) WHERE verified DO NOTHING
)""")
        if tracked:
            parts.append(f"""new_commission AS (
    INSERT INTO {Commission._meta.db_table} ({_COMMISSION.names})
    SELECT {_COMMISSION.placeholders()} FROM new_order{" RETURNING id, brand_id, created_at" if held else ""}
)""")
            if held:
                parts.append(review_holds.STATEMENT_PART)
        if recorded:
            parts.append(f"""event AS (
    INSERT INTO {OutcomeEvent._meta.db_table} ({_EVENT.names}) SELECT {_EVENT.placeholders()} FROM new_order
)""")
        _statements[key] = ",\n".join(parts) + "\nSELECT id FROM new_order"
    return _statements[key]


def statement_params(rows: OrderRows, event: EventRecord | None, *, claim: dict | None = None) -> dict:
    """The parameters of `statement` for these rows."""
    params = _ORDER.params(rows.order, into={})
    if claim is not None:
        _DELIVERY.params(claim, into=params)
    if rows.commission is not None:
        _COMMISSION.params(rows.commission, into=params)
        if review_holds.is_held(rows.commission):
            params["h_holds"] = review_holds.as_json(rows.order)
    if event is not None:
        _EVENT.params(row_values(event), into=params)
    return params


def insert_in_one_statement(db, rows: OrderRows, event: EventRecord | None, *, claim: dict | None = None):
    """PostgreSQL: write `statement`; the new order's id, or None when the order id was already taken.
    `claim`: a platform delivery's row values (connection_id, delivery_id, topic)."""
    params = statement_params(rows, event, claim=claim)
    sql = statement(
        tracked=rows.commission is not None,
        recorded=event is not None,
        claim=claim is not None,
        held=review_holds.is_held(rows.commission),
    )
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    return found[0] if found else None


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
                commission_pk = _insert_commission(order_id=order_pk, **rows.commission)
                if review_holds.is_held(rows.commission):
                    review_holds.write(commission_pk, rows.order, rows.commission)
            stored = True
        if event is not None:
            record(event if stored else duplicate_event(rows, event))
    return stored
