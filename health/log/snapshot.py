"""One consistent view of the outcome log's counts, watermark and tail across several SELECTs: the pages,
the alert evaluation and the portfolio read through it."""

from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def consistent_snapshot():
    """One consistent view of counts, watermark and tail across several SELECTs.

    PostgreSQL: a REPEATABLE READ transaction. SQLite: a read transaction keeps writers from
    committing in between. Inside an outer transaction (tests), the outer one decides.
    """
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield
