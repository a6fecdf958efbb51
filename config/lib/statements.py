"""INSERT and UPDATE statements built once per model, for the rows every event writes or changes.

`Model.objects.create()` compiles its SQL and builds a model instance on every call: about 0.2 ms
of Python per row, as much as the rest of an order confirmation's own work (bench/README.md).
`InsertStatement` builds the statement from the model's fields once and converts each value with the
field's own `get_db_prep_save`, exactly as the ORM would, so it works on every database Django
supports and follows the model when it changes. It skips what those rows do not use: signals,
`pre_save` hooks such as `auto_now`, and the instance itself.
"""

import json
from typing import NamedTuple

from django.db import connections, transaction


class _Statement:
    """One model's statement, written once per database alias (quoting differs between backends)."""

    def __init__(self, model, fields):
        self.model = model
        self.fields = fields
        for field in fields:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                raise TypeError(
                    f"{model.__name__}.{field.name}: auto_now is a pre_save hook; pass the time instead"
                )
        self._sql = {}

    def sql(self, connection) -> str:
        sql = self._sql.get(connection.alias)
        if sql is None:
            sql = self._sql[connection.alias] = self.write(connection.ops.quote_name, self.model._meta)
        return sql

    def write(self, quote, meta) -> str:
        raise NotImplementedError


class InsertStatement(_Statement):
    """`InsertStatement(Order)(brand_id=..., order_id=...)` inserts one row and returns its primary key.

    Values are given by attribute name (`brand_id`, not `brand`); a field left out gets its model
    default, as with `create()`. An unknown name raises TypeError.

    `unless_taken` names the columns of a unique key (and `where` the boolean column of its partial index,
    if any): a row whose key is taken is not inserted (ON CONFLICT DO NOTHING; on PostgreSQL after waiting
    for the transaction that holds it), and the call returns None.
    """

    def __init__(self, model, *, unless_taken: tuple[str, ...] = (), where: str = ""):
        super().__init__(model, [f for f in model._meta.concrete_fields if not f.primary_key])
        self.names = frozenset(f.attname for f in self.fields)
        self.unless_taken, self.where = unless_taken, where

    @classmethod
    def cached(cls, model) -> "InsertStatement":
        """The statement of `model`, built once per process."""
        if model not in _inserts:
            _inserts[model] = cls(model)
        return _inserts[model]

    def write(self, quote, meta) -> str:
        columns = ", ".join(quote(f.column) for f in self.fields)
        values = ", ".join(["%s"] * len(self.fields))
        sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({values})"
        if self.unless_taken:
            key = ", ".join(quote(name) for name in self.unless_taken)
            sql += f" ON CONFLICT ({key}){f' WHERE {quote(self.where)}' if self.where else ''} DO NOTHING"
        return f"{sql} RETURNING {quote(meta.pk.column)}"

    def __call__(self, using: str = "default", **values) -> int | None:
        unknown = values.keys() - self.names
        if unknown:
            raise TypeError(f"{self.model.__name__} has no field {', '.join(sorted(unknown))}")
        connection = connections[using]
        params = [
            f.get_db_prep_save(values[f.attname] if f.attname in values else f.get_default(), connection)
            for f in self.fields
        ]
        with connection.cursor() as cursor:
            cursor.execute(self.sql(connection), params)
            row = cursor.fetchone()
        return row[0] if row else None


class BulkInsert(_Statement):
    """`BulkInsert(BookRow, names)(rows)` writes many rows at once from tuples in `names` order (attribute
    names), and returns how many: one COPY on PostgreSQL, one executemany INSERT elsewhere.

    A batch of bulk_create compiles every value through its field and builds a model instance per row
    (two thirds of a reconciliation's time at 100,000 rows, bench/README.md). COPY streams the tuples as
    they are: psycopg dumps text, numbers, Decimal, booleans, aware datetimes and NULL as PostgreSQL stores
    them (JSON would need its own dumper: refused here). Elsewhere each value goes through its field's
    `get_db_prep_save`, as the ORM would. A COPY is not seen by Django's query log (nor by
    `connection.execute_wrapper`): callers that count statements count its calls.
    """

    def __init__(self, model, names):
        fields = [model._meta.get_field(name) for name in names]
        super().__init__(model, fields)
        for field in fields:
            if field.get_internal_type() == "JSONField":
                raise TypeError(f"{model.__name__}.{field.name}: JSON needs its own dumper for COPY")

    def sql(self, connection) -> str:
        sql = self._sql.get(connection.alias)
        if sql is None:
            quote, table = connection.ops.quote_name, connection.ops.quote_name(self.model._meta.db_table)
            columns = ", ".join(quote(f.column) for f in self.fields)
            if connection.vendor == "postgresql":
                sql = f"COPY {table} ({columns}) FROM STDIN"
            else:
                sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(self.fields))})"
            self._sql[connection.alias] = sql
        return sql

    def __call__(self, rows, using: str = "default") -> int:
        connection = connections[using]
        sql = self.sql(connection)
        written = 0
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                with cursor.cursor.copy(sql) as copy:
                    for row in rows:
                        copy.write_row(row)
                        written += 1
                return written
            prepared = [
                [
                    field.get_db_prep_save(value, connection)
                    for field, value in zip(self.fields, row, strict=True)
                ]
                for row in rows
            ]
            cursor.executemany(sql, prepared)
            return len(prepared)


class UpdateStatement(_Statement):
    """`UpdateStatement(Commission, ["amount", "updated_at"])(commission)` writes those fields of the
    instance to its row, as `instance.save(update_fields=...)` does, and returns the rows changed.

    `where` names columns the row must still hold for the UPDATE to apply (their values are passed per
    call): `UpdateStatement(Commission, ["state"], where=["state"])(c, where=["pending"])` changes the row
    only while it is pending, and the UPDATE's row lock makes that check and the write one step.
    Built once per model and field list; values are converted by each field's `get_db_prep_save`.
    Like InsertStatement it sends no signals and runs no `pre_save` hooks.
    """

    @classmethod
    def cached(cls, model, names, *, where=()) -> "UpdateStatement":
        """The statement of `model`, these fields and this condition, built once per process."""
        key = (model, tuple(names), tuple(where))
        if key not in _updates:
            _updates[key] = cls(model, names, where=where)
        return _updates[key]

    def __init__(self, model, names, *, where=()):
        fields = [model._meta.get_field(name) for name in names]
        for field in fields:
            if field.primary_key or not field.concrete:
                raise TypeError(f"{model.__name__}.{field.name} cannot be updated by UpdateStatement")
        self.where = [model._meta.get_field(name) for name in where]
        super().__init__(model, fields)

    def write(self, quote, meta) -> str:
        assignments = ", ".join(f"{quote(f.column)} = %s" for f in self.fields)
        conditions = "".join(f" AND {quote(f.column)} = %s" for f in self.where)
        return (
            f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s{conditions}"
        )

    def __call__(self, instance, using: str = "default", *, where=()) -> int:
        if len(where) != len(self.where):
            raise TypeError(f"expected values for {', '.join(f.name for f in self.where) or 'no condition'}")
        connection = connections[using]
        params = [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in self.fields]
        params.append(instance.pk)
        params.extend(
            f.get_db_prep_save(value, connection) for f, value in zip(self.where, where, strict=True)
        )
        with connection.cursor() as cursor:
            cursor.execute(self.sql(connection), params)
            return cursor.rowcount


_inserts: dict = {}
_updates: dict = {}


def save_fields(instance, names) -> None:
    """`instance.save(update_fields=names)` through an UpdateStatement cached per model and field list."""
    if UpdateStatement.cached(type(instance), names)(instance) != 1:
        raise type(instance).DoesNotExist(f"{type(instance).__name__} {instance.pk} is gone")


# PostgreSQL's name for each parameter a hand-written statement casts (the column's base type: a cast
# to varchar(255) or numeric(18, 6) would truncate or round where the column itself would refuse).
_PG_CASTS = {
    "AutoField": "integer",
    "BigAutoField": "bigint",
    "BigIntegerField": "bigint",
    "BooleanField": "boolean",
    "CharField": "varchar",
    "DateField": "date",
    "DateTimeField": "timestamptz",
    "DecimalField": "numeric",
    "IntegerField": "integer",
    "JSONField": "jsonb",
    "PositiveIntegerField": "integer",
    "PositiveSmallIntegerField": "smallint",
    "SlugField": "varchar",
    "SmallIntegerField": "smallint",
    "TextField": "text",
}


_EMPTY_JSON = {list: "[]", dict: "{}"}


class Columns:
    """One model's row inside a statement written by hand for PostgreSQL (attribution.store): its column
    list, its parameters each with an explicit cast, and the values as psycopg sends them as they are.

    The ORM converts every value through its field (`get_db_prep_save`, several calls per value); for the
    types a model row holds here (text, numbers, Decimal, aware datetimes, booleans, NULL) psycopg already
    sends what PostgreSQL stores, so only JSON is written out (as text, cast to jsonb). The casts make
    PostgreSQL check each value's type as the column would. Rows keyed by `prefix` can share a statement.
    """

    def __init__(self, model, prefix: str, *, names=None, sql: dict[str, str] | None = None):
        """`sql`: columns whose value the statement writes as SQL (another row's column, say), by attribute
        name; they take no parameter, so a row's values for them are not sent."""
        self.model = model
        self.prefix = prefix
        if names is None:
            self.fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        else:
            self.fields = [model._meta.get_field(name) for name in names]
        self.sql = dict(sql or {})
        self.attnames = [f.attname for f in self.fields]
        self.names = ", ".join(f.column for f in self.fields)
        # What params() does for each column, decided once (a row's params are built on every event): its
        # attribute, its parameter, its field if the value is JSON (sent as text), its field if it has a default.
        self._plan = [
            (
                f.attname,
                prefix + f.attname,
                f if f.get_internal_type() == "JSONField" else None,
                f if f.has_default() or f.null else None,
            )
            for f in self.fields
            if f.attname not in self.sql
        ]

    def cast(self, field) -> str:
        target = field.target_field if field.is_relation else field
        return _PG_CASTS[target.get_internal_type()]

    def each(self, **columns: str) -> list[str]:
        """`%(prefix_column)s::type` for each column in order; `columns` (and `sql`) put SQL in place of some."""
        columns = {**self.sql, **columns}
        return [
            columns.get(f.attname) or f"%({self.prefix}{f.attname})s::{self.cast(f)}" for f in self.fields
        ]

    def placeholders(self, **columns: str) -> str:
        return ", ".join(self.each(**columns))

    def params(self, values: dict, *, into: dict) -> dict:
        """Add the parameters of one row (values by attribute name; a missing one takes its default)."""
        for name, key, json_field, default_field in self._plan:
            if name in values:
                value = values[name]
            elif default_field is not None:
                value = default_field.get_default()
            else:
                continue  # given as SQL in placeholders()
            if json_field is not None and value is not None:
                # An empty list or object (an event's warnings, a direct order's trace) is its own JSON text;
                # the encoder's way there costs ~13k instructions a value.
                empty = _EMPTY_JSON.get(type(value)) if not value else None
                value = empty or json.dumps(value, cls=json_field.encoder)
            into[key] = value
        return into


class SelectStatement:
    """`SelectStatement(Click, "click", "FROM ... WHERE click.click_id = %s", extra={...})(params)` reads one
    row as a model instance (or None), each `extra` SQL expression set as an attribute.

    The lookups every event makes (its click, code, developer key, commission) run this: `raw()` matches
    its columns to the model's fields and builds its converters again on every call, ~0.1 ms of Python
    per lookup (bench/README.md). Here the select list is written once from the model's fields, each
    column's converters (those the ORM would apply on this database: SQLite's datetimes and decimals,
    none on PostgreSQL) found once per database, and the instance built as the ORM builds it (from_db).
    """

    def __init__(self, model, alias: str, tail: str, *, extra: dict | None = None):
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.extra = dict(extra or {})
        columns = [f"{alias}.{f.column}" for f in self.fields]
        columns += [f"{expression} AS {name}" for name, expression in self.extra.items()]
        self.sql = f"SELECT {', '.join(columns)} {tail}"
        self._attnames = [f.attname for f in self.fields]
        self._converters = {}

    def converters(self, connection) -> list:
        found = self._converters.get(connection.alias)
        if found is None:
            found = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.model._meta.db_table)
                functions = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
                if functions:
                    found.append((index, column, functions))
            self._converters[connection.alias] = found
        return found

    def __call__(self, params, using: str = "default"):
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        values = list(row[: len(self.fields)])
        for index, column, functions in self.converters(connection):
            for convert in functions:
                values[index] = convert(values[index], column, connection)
        instance = self.model.from_db(using, self._attnames, values)
        for name, value in zip(self.extra, row[len(self.fields) :], strict=True):
            setattr(instance, name, value)
        return instance


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
