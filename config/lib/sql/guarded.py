"""A guarded update: a row's fields written only if it still holds what the caller read, with the rows that
go with it, all or nothing (one statement on PostgreSQL)."""

from typing import NamedTuple

from django.db import connections, transaction

from .columns import Columns
from .writes import InsertStatement, UpdateStatement


class Row(NamedTuple):
    """A row to insert alongside a guarded update (`write_guarded`): its model and values by attribute."""

    model: type
    values: dict


_guarded: dict = {}


def write_guarded(instance, names, *, where: dict, rows=(), using: str = "default") -> bool:
    """Write fields `names` of `instance` to its row if the row still holds `where` (column: value), and
    insert `rows` only if it did, all or nothing. True when it applied; False (nothing written) when the
    row had changed meanwhile, or is gone.

    The UPDATE takes the row's lock as it writes, so its condition is checked and the row changed as one
    step. On PostgreSQL it is one statement (data-modifying CTEs: one round trip and one commit where an
    update, its history row and an outcome row took three statements and a transaction, bench/README.md);
    elsewhere the same statements in one transaction.
    """
    connection = connections[using]
    if connection.vendor == "postgresql":
        return _write_guarded_in_one_statement(connection, instance, names, where, rows)
    update = UpdateStatement.cached(type(instance), names, where=list(where))
    # Its own transaction, or a savepoint inside the caller's, so a failure here leaves the caller's usable.
    with transaction.atomic(using=using):
        if update(instance, using, where=list(where.values())) != 1:
            return False
        for row in rows:
            InsertStatement.cached(row.model)(using, **row.values)
    return True


def _write_guarded_in_one_statement(connection, instance, names, where, rows) -> bool:
    model = type(instance)
    key = (model, tuple(names), tuple(where), tuple(row.model for row in rows))
    built = _guarded.get(key)
    if built is None:
        meta = model._meta
        changed = Columns(model, "u_", names=names)
        guard = Columns(model, "w_", names=list(where))
        inserted = [Columns(row.model, f"r{i}_") for i, row in enumerate(rows)]
        assignments = ", ".join(
            f"{f.column} = {p}" for f, p in zip(changed.fields, changed.each(), strict=True)
        )
        conditions = "".join(
            f" AND {f.column} = {p}" for f, p in zip(guard.fields, guard.each(), strict=True)
        )
        parts = [
            f"WITH changed AS (UPDATE {meta.db_table} SET {assignments} "
            f"WHERE {meta.pk.column} = %(pk)s{conditions} RETURNING 1)"
        ]
        parts += [
            f"r{i} AS (INSERT INTO {columns.model._meta.db_table} ({columns.names}) "
            f"SELECT {columns.placeholders()} FROM changed)"
            for i, columns in enumerate(inserted)
        ]
        built = _guarded[key] = (", ".join(parts) + " SELECT count(*) FROM changed", changed, guard, inserted)
    sql, changed, guard, inserted = built
    params = changed.params(
        {name: getattr(instance, name) for name in changed.attnames}, into={"pk": instance.pk}
    )
    guard.params(where, into=params)
    for columns, row in zip(inserted, rows, strict=True):
        columns.params(row.values, into=params)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0] == 1
