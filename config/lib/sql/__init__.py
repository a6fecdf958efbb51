"""Statements built once per model for the rows every event reads, writes or changes (bench/README.md says
what each saves over the ORM's per-call work), one module per kind:

- writes: InsertStatement, BulkInsert (a batch; COPY on PostgreSQL), UpdateStatement, save_fields;
- selects: SelectStatement, one row read as a model instance;
- columns: Columns, a model's row inside a statement written by hand for PostgreSQL;
- guarded: write_guarded and its Row, an update applied only if the row is unchanged.

Import them from here: `from config.lib.sql import InsertStatement`.
"""

from .columns import Columns
from .guarded import Row, write_guarded
from .selects import SelectStatement
from .writes import BulkInsert, InsertStatement, UpdateStatement, save_fields

__all__ = [
    "BulkInsert",
    "Columns",
    "InsertStatement",
    "Row",
    "SelectStatement",
    "UpdateStatement",
    "save_fields",
    "write_guarded",
]
