"""SELECT statements built once per model: one row read as a model instance, without raw()'s per-call cost."""

from django.db import connections


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
