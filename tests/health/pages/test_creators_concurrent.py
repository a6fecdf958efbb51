"""The Creators table's reads at the same time (health.pages.concurrent_reads; docs/health.md, "Creators"):
on PostgreSQL, outside a transaction, the clicks and the commissions are read on other connections while
the request's own reads the creators and the code shares, and the table is the one read in turn."""

import threading

import pytest
from django.db import connection, transaction

from attribution.models import Commission
from health.pages.concurrent_reads import ConcurrentReads, can_run_apart
from health.pages.creators.list_queries import creator_table
from tests.health.pages import creators_world
from tests.health.pages.test_creators import october

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="reads run at once on PostgreSQL only; SQLite reads in turn"
    ),
]


def backend():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return threading.get_ident(), cursor.fetchone()[0]


def test_a_read_run_apart_has_its_own_thread_and_connection():
    here = backend()
    with ConcurrentReads(Commission) as reads:
        apart = reads.run(backend)

    assert reads.apart
    there = apart.result()
    assert there[0] != here[0] and there[1] != here[1]


def test_inside_a_transaction_every_read_runs_in_turn_on_the_requests_connection():
    with transaction.atomic():
        assert not can_run_apart(Commission)  # another connection would not see the transaction's rows
        here = backend()
        with ConcurrentReads(Commission) as reads:
            in_turn = reads.run(backend)

    assert not reads.apart
    assert in_turn.result() == here


def test_a_read_that_fails_apart_raises_its_error_in_the_request():
    def fails():
        raise ValueError("no such figure")

    with ConcurrentReads(Commission) as reads:
        failed = reads.run(fails)

    with pytest.raises(ValueError, match="no such figure"):
        failed.result()


@pytest.mark.parametrize("is_test", [False, True], ids=["live", "test"])
def test_the_table_read_at_once_is_the_table_read_in_turn(brand, prop, is_test):
    creators_world.build(brand, prop)
    assert can_run_apart(Commission)

    at_once = creator_table(brand, october(), is_test=is_test)
    with transaction.atomic():  # in a transaction: every read in turn, on this connection
        in_turn = creator_table(brand, october(), is_test=is_test)

    assert at_once == in_turn
    ana = next(row for row in at_once.rows if row.name == "Ana")
    assert ana.counts.orders == (1 if is_test else 8)
