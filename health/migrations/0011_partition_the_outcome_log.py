"""On PostgreSQL, the outcome log becomes a table range-partitioned by month on received_at, every row kept
(docs/scaling.md, "A partitioned outcome log"; the choice in docs/decisions.md). SQLite keeps its plain
table: nothing happens there.

The table is rebuilt under its own name: the old one is renamed, a partitioned one made LIKE it (its
columns, defaults and checks), with monthly partitions for the kept months (the last 400 days, rounded
to months) through MONTHS_AHEAD months ahead and a DEFAULT partition for anything else; the rows are
copied, then the primary key (id, received_at: a partitioned table's keys include the partition key),
the foreign key to the brand and every index are made again under their own names, and the id sequence
continues where it was. Measured at 1M rows in docs/performance.md. Django's model is unchanged: it keeps
`id` as its primary key, which stays unique (one sequence).
"""

from datetime import UTC, date, datetime, timedelta

from django.db import migrations

PARENT = "health_outcomeevent"
OLD = "health_outcomeevent_unpartitioned"
KEPT_DAYS = 400
MONTHS_AHEAD = 3


def _month(d: date) -> date:
    return date(d.year, d.month, 1)


def _next(d: date) -> date:
    return date(d.year + d.month // 12, d.month % 12 + 1, 1)


def partition(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [PARENT])
        if cursor.fetchone()[0] == "p":
            return  # already partitioned
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s "
            "AND indexname <> %s",
            [PARENT, f"{PARENT}_pkey"],
        )
        indexes = cursor.fetchall()
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'f'",
            [PARENT],
        )
        foreign_keys = cursor.fetchall()
        cursor.execute(f"SELECT min(received_at), COALESCE(max(id), 0) FROM {PARENT}")
        oldest, last_id = cursor.fetchone()

        cursor.execute(f"ALTER TABLE {PARENT} RENAME TO {OLD}")
        cursor.execute(f"ALTER TABLE {OLD} RENAME CONSTRAINT {PARENT}_pkey TO {OLD}_pkey")
        for name, _ in indexes:
            cursor.execute(f"ALTER INDEX {name} RENAME TO {name[:50]}_unpart")
        for name, _ in foreign_keys:
            cursor.execute(f"ALTER TABLE {OLD} DROP CONSTRAINT {name}")

        cursor.execute(
            f"CREATE TABLE {PARENT} (LIKE {OLD} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) "
            "PARTITION BY RANGE (received_at)"
        )
        cursor.execute(f"CREATE SEQUENCE {PARENT}_seq START WITH {last_id + 1} OWNED BY {PARENT}.id")
        cursor.execute(f"ALTER TABLE {PARENT} ALTER COLUMN id SET DEFAULT nextval('{PARENT}_seq')")

        today = datetime.now(UTC).date()
        first = _month(today - timedelta(days=KEPT_DAYS))
        if oldest is not None:
            first = max(first, _month(oldest.astimezone(UTC).date()))
        last = _month(today)
        for _ in range(MONTHS_AHEAD):
            last = _next(last)
        month = first
        while month <= last:
            cursor.execute(
                f"CREATE TABLE {PARENT}_p{month:%Y_%m} PARTITION OF {PARENT} "
                f"FOR VALUES FROM ('{month} 00:00:00+00') TO ('{_next(month)} 00:00:00+00')"
            )
            month = _next(month)
        cursor.execute(f"CREATE TABLE {PARENT}_default PARTITION OF {PARENT} DEFAULT")

        cursor.execute(f"INSERT INTO {PARENT} SELECT * FROM {OLD}")
        cursor.execute(f"ALTER TABLE {PARENT} ADD CONSTRAINT {PARENT}_pkey PRIMARY KEY (id, received_at)")
        for name, definition in foreign_keys:
            cursor.execute(f"ALTER TABLE {PARENT} ADD CONSTRAINT {name} {definition}")
        for name, definition in indexes:
            # Read before the rename, the definition names the table "health_outcomeevent": now the
            # partitioned one, on which it builds the index of every partition.
            cursor.execute(definition)
        cursor.execute(f"DROP TABLE {OLD}")
        cursor.execute(f"ALTER SEQUENCE {PARENT}_seq RENAME TO {PARENT}_id_seq")
        cursor.execute(f"ANALYZE {PARENT}")


class Migration(migrations.Migration):
    atomic = True

    dependencies = [("health", "0010_needs_action_index_and_unresolved_host_counts")]

    operations = [migrations.RunPython(partition, migrations.RunPython.noop, elidable=False)]
