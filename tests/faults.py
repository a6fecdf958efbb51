"""Database faults on demand, the same on both write paths (one statement on PostgreSQL, one per row
elsewhere): Django's execute_wrapper refuses the statements that write a table."""

from django.db import OperationalError, connection


def failing_writes_to(table: str, error=OperationalError):
    """Within the block, every statement inserting into or updating `table` fails with `error`."""

    def refuse(execute, sql, params, many, context):
        if any(
            f"{verb} {quote}{table}{quote}" in sql
            for verb in ("INSERT INTO", "UPDATE")
            for quote in ("", '"')
        ):
            raise error("could not write: disk full")
        return execute(sql, params, many, context)

    return connection.execute_wrapper(refuse)
