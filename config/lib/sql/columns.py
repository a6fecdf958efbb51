"""A model's row inside a statement written by hand for PostgreSQL: its columns, its cast parameters, and its
values as psycopg sends them."""

from config.lib import jsontext

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
    """One model's row inside a statement written by hand for PostgreSQL (attribution.orders.store): its column
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
                value = empty or jsontext.dumps(value, json_field.encoder)
            into[key] = value
        return into
