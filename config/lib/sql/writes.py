"""INSERT and UPDATE statements built once per model, for the rows every event writes or changes.

`Model.objects.create()` compiles its SQL and builds a model instance on every call: about 0.2 ms
of Python per row, as much as the rest of an order confirmation's own work (bench/README.md).
`InsertStatement` builds the statement from the model's fields once and converts each value with the
field's own `get_db_prep_save`, exactly as the ORM would, so it works on every database Django
supports and follows the model when it changes. It skips what those rows do not use: signals,
`pre_save` hooks such as `auto_now`, and the instance itself.
"""

from django.db import connections


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
