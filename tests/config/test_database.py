"""The database layer under the hot paths: prebuilt INSERT and UPDATE statements and the reused-connection check."""

from datetime import UTC, datetime
from decimal import Decimal

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from attribution.models import BookRow, Commission, Order, Reconciliation
from config.lib.sql import BulkInsert, InsertStatement, UpdateStatement, save_fields
from health.log.models import OutcomeEvent

insert_order = InsertStatement(Order)
insert_event = InsertStatement(OutcomeEvent)


def test_an_insert_statement_stores_the_row_as_the_orm_would_and_returns_its_id(prop):
    received = datetime(2026, 11, 21, 18, 30, 0, 123456, tzinfo=UTC)

    pk = insert_order(
        brand_id=prop.brand_id,
        order_id="A-1001",
        amount=Decimal("59.905"),
        currency="USD",
        property_id=prop.pk,
        outcome="no_attribution",
        received_at=received,
    )

    order = Order.objects.get(pk=pk)
    assert (order.order_id, order.amount, order.currency, order.received_at) == (
        "A-1001",
        Decimal("59.905"),
        "USD",
        received,
    )
    # Fields left out get their model defaults, as with create().
    assert (order.is_test, order.attribution, order.page_host, order.click_id) == (False, "none", "", None)


@pytest.mark.django_db
def test_a_bulk_insert_stores_many_rows_as_the_orm_would_in_one_write(brand):
    """COPY on PostgreSQL, executemany elsewhere: one write, the values as the ORM would store them."""
    run = Reconciliation.objects.create(
        brand=brand, format="generic", order_id_column="id", amount_column="a"
    )
    names = ["brand_id", "reconciliation_id", "line", "order_id", "is_test", "status", "detail", "amount",
             "currency", "cancelled", "received", "code", "click_id", "ordered_at", "commission", "change",
             "change_detail"]  # fmt: skip
    at = datetime(2026, 11, 21, 18, 30, 0, 123456, tzinfo=UTC)
    rows = [
        (brand.pk, run.pk, n, f"B-{n}", n == 2, "missing", "Ünïcode, \"quoted\"\ttab", Decimal("59.905"), "USD",
         False, False, "", "", at if n else None, None, "", "")
        for n in range(2, 5)
    ]  # fmt: skip

    with CaptureQueriesContext(connection) as captured:
        written = BulkInsert(BookRow, names)(rows)

    assert written == 3
    assert len(captured.captured_queries) == (
        0 if connection.vendor == "postgresql" else 1
    )  # a COPY is unseen
    stored = list(
        BookRow.objects.order_by("line").values_list("order_id", "is_test", "detail", "amount", "ordered_at")
    )
    assert stored == [
        ("B-2", True, 'Ünïcode, "quoted"\ttab', Decimal("59.905"), at),
        ("B-3", False, 'Ünïcode, "quoted"\ttab', Decimal("59.905"), at),
        ("B-4", False, 'Ünïcode, "quoted"\ttab', Decimal("59.905"), at),
    ]


def test_a_bulk_insert_refuses_json_fields():
    with pytest.raises(TypeError, match="JSON"):
        BulkInsert(Order, ["order_id", "trace"])


def test_json_fields_are_stored_as_json(brand):
    pk = insert_event(
        brand_id=brand.pk,
        endpoint="order_confirmation",
        outcome="tracked",
        http_status=200,
        request_body='{"orderId": "A-1", "orderAmount": 59.90, "nested": [1, {"a": null}]}',
        response_body={"success": True},
    )

    event = OutcomeEvent.objects.get(pk=pk)
    assert event.request_body == '{"orderId": "A-1", "orderAmount": 59.90, "nested": [1, {"a": null}]}'
    assert event.response_body == {"success": True}
    assert event.warnings == []  # the model default
    assert event.received_at is not None


def test_an_insert_statement_is_one_query(brand, django_assert_num_queries):
    with django_assert_num_queries(1):
        insert_event(brand_id=brand.pk, endpoint="cancel", outcome="tracked", http_status=200)


def test_an_unknown_field_is_refused_before_anything_is_written(brand):
    with pytest.raises(TypeError, match="no field brand"):
        insert_event(brand=brand, endpoint="cancel", outcome="tracked", http_status=200)
    assert not OutcomeEvent.objects.exists()


def test_an_update_statement_writes_only_its_fields_as_save_would(brand):
    from tests.attribution.keyed import commission_for

    commission = commission_for(brand, order_id="U-1", order_amount="100.00")
    stale = Commission.objects.get(pk=commission.pk)
    stale.state = Commission.State.CANCELLED  # changed in memory only: not among the fields written
    stale.order_amount, stale.amount = Decimal("80.004"), Decimal("8.00")
    changed_at = datetime(2026, 11, 21, 19, 0, 0, 654321, tzinfo=UTC)
    stale.updated_at = changed_at

    assert UpdateStatement(Commission, ["order_amount", "amount", "updated_at"])(stale) == 1

    row = Commission.objects.get(pk=commission.pk)
    assert (row.order_amount, row.amount, row.updated_at, row.state) == (
        Decimal("80.004"),
        Decimal("8.00"),
        changed_at,
        Commission.State.PENDING,
    )


def test_save_fields_is_one_query_and_refuses_a_row_that_is_gone(brand, django_assert_num_queries):
    from tests.attribution.keyed import commission_for

    commission = commission_for(brand, order_id="U-2")
    commission.amount = Decimal("1.00")
    with django_assert_num_queries(1):
        save_fields(commission, ["amount"])
    assert Commission.objects.get(pk=commission.pk).amount == Decimal("1.00")

    Commission.objects.filter(pk=commission.pk).delete()
    with pytest.raises(Commission.DoesNotExist):
        save_fields(commission, ["amount"])


def test_an_update_statement_refuses_the_primary_key():
    with pytest.raises(TypeError, match="cannot be updated"):
        UpdateStatement(Commission, ["id"])


def test_a_model_with_auto_now_cannot_be_given_an_insert_statement():
    from django.db import models

    class Stamped(models.Model):
        changed = models.DateTimeField(auto_now=True)

        class Meta:
            app_label = "tests"

    with pytest.raises(TypeError, match="auto_now"):
        InsertStatement(Stamped)


# --- the reused-connection check (PostgreSQL: config/db/base.py) --------------------------------------------


@pytest.fixture
def own_connection(postgres_only, transactional_db):
    """The default connection, outside a test transaction, as a worker holds it between requests."""
    connection.ensure_connection()
    yield connection
    connection.close()


def _next_request(conn):
    """What Django does between two requests of a worker with CONN_HEALTH_CHECKS on."""
    conn.close_if_unusable_or_obsolete()


def test_a_healthy_reused_connection_is_kept_without_a_round_trip(own_connection, monkeypatch):
    before = own_connection.connection
    round_trips = []
    monkeypatch.setattr(own_connection, "is_usable", lambda: round_trips.append("SELECT 1") or True)
    _next_request(own_connection)

    with CaptureQueriesContext(own_connection) as queries:
        own_connection.close_if_health_check_failed()

    assert own_connection.connection is before
    assert round_trips == []
    assert len(queries) == 0


def test_a_connection_the_server_ended_is_replaced_before_the_next_request_uses_it(own_connection):
    old_pid = own_connection.connection.info.backend_pid
    with psycopg.connect(**own_connection.get_connection_params(), autocommit=True) as admin:
        # With a timeout, PostgreSQL returns once the backend has exited, as after a restart.
        admin.execute("SELECT pg_terminate_backend(%s, 5000)", [old_pid])
    _next_request(own_connection)

    with own_connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        new_pid = cursor.fetchone()[0]

    assert new_pid != old_pid


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own locking; PostgreSQL locks rows")
def test_a_sqlite_transaction_takes_the_write_lock_as_it_begins_so_it_never_has_to_upgrade(
    tmp_path, django_db_blocker
):
    # A transaction that reads and then writes (update_or_create does) would otherwise hold only a read
    # lock until its write, and SQLite refuses that upgrade at once, without waiting, when another
    # writer came in between: "database is locked" under `make run`, where the server and the task
    # runner's workers write at the same time. Taken at BEGIN, the lock makes the other writer wait.
    from django.db.backends.sqlite3.base import DatabaseWrapper

    def connect(*, timeout: float) -> DatabaseWrapper:
        options = {**connection.settings_dict["OPTIONS"], "timeout": timeout}
        return DatabaseWrapper(
            {**connection.settings_dict, "NAME": str(tmp_path / "db.sqlite3"), "OPTIONS": options},
            alias="locking",
        )

    with django_db_blocker.unblock():
        reader_then_writer, other_writer = connect(timeout=5), connect(timeout=0.01)
        reader_then_writer.cursor().execute("CREATE TABLE t (x integer)")

        reader_then_writer.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
        reader_then_writer.cursor().execute("SELECT count(*) FROM t")  # it has only read so far
        with pytest.raises(OperationalError, match="database is locked"):
            other_writer.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
        reader_then_writer.cursor().execute("INSERT INTO t VALUES (1)")  # no upgrade to be refused
        reader_then_writer.commit()

        assert reader_then_writer.cursor().execute("SELECT count(*) FROM t").fetchone() == (1,)
        reader_then_writer.close()
        other_writer.close()
