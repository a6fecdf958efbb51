"""The outcome log's monthly partitions on PostgreSQL (docs/scaling.md, "A partitioned outcome log").

On PostgreSQL `health_outcomeevent` is range-partitioned by month on `received_at` (native declarative
partitioning; docs/decisions.md, "Native partitioning of the outcome log"), with one partition per month
named `health_outcomeevent_pYYYY_MM` and a DEFAULT partition, `health_outcomeevent_default`, that takes an
event of a month without a partition (an old event replayed from the spool, say), so none is ever lost.
Months are made ahead: at every `migrate` (post_migrate) and by the daily task. Retention drops whole
months (health.log.retention). SQLite keeps one plain table: every function here does nothing there.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.db import connection, transaction

PARENT = "health_outcomeevent"
DEFAULT = f"{PARENT}_default"
MONTHS_AHEAD = 3
# The log's time order across brands (health migration 0016): the alert facts' last hour, the admin's date filter.
TIME_BRIN = "outcome_time_brin"


def partitioned() -> bool:
    """Whether the outcome log is a partitioned table here (PostgreSQL after health migration 0011)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [PARENT])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def month_start(moment: datetime | date) -> date:
    return date(moment.year, moment.month, 1)


def next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)


def partition_name(first: date) -> str:
    return f"{PARENT}_p{first:%Y_%m}"


@dataclass(frozen=True)
class Partition:
    name: str
    starts: date
    ends: date  # exclusive


def monthly_partitions() -> list[Partition]:
    """The monthly partitions that exist, oldest first (the DEFAULT partition is not one of them)."""
    if not partitioned():
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT child.relname, pg_get_expr(child.relpartbound, child.oid)
            FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
            WHERE pg_inherits.inhparent = %s::regclass AND child.relname <> %s
            """,
            [PARENT, DEFAULT],
        )
        rows = cursor.fetchall()
    found = []
    for name, bound in rows:
        # FOR VALUES FROM ('2026-11-01 00:00:00+00') TO ('2026-12-01 00:00:00+00')
        starts, ends = (datetime.fromisoformat(part.split("'")[1]).date() for part in bound.split(" TO "))
        found.append(Partition(name, starts, ends))
    return sorted(found, key=lambda p: p.starts)


def ensure_partitions(*, now: datetime | None = None, ahead: int = MONTHS_AHEAD) -> list[str]:
    """Create the partitions of this month and the next `ahead` months that are missing; their names.

    A month's rows that already sit in the DEFAULT partition (it had no partition when they came) are moved
    into the new partition, which is attached only then, so creating a month never fails on them."""
    if not partitioned():
        return []
    first = month_start(now or datetime.now(UTC))
    have = {p.starts for p in monthly_partitions()}
    made = []
    for _ in range(ahead + 1):
        if first not in have:
            create_month(first)
            made.append(partition_name(first))
        first = next_month(first)
    return made


def create_month(first: date) -> None:
    name, ends = partition_name(first), next_month(first)
    bounds = [
        datetime.combine(first, datetime.min.time(), UTC),
        datetime.combine(ends, datetime.min.time(), UTC),
    ]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {name} (LIKE {PARENT} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        cursor.execute(
            f"WITH moved AS (DELETE FROM {DEFAULT} WHERE received_at >= %s AND received_at < %s RETURNING *) "
            f"INSERT INTO {name} SELECT * FROM moved",
            bounds,
        )
        # DDL takes no bound parameters: the bounds are dates this function made, written as literals.
        cursor.execute(
            f"ALTER TABLE {PARENT} ATTACH PARTITION {name} "
            f"FOR VALUES FROM ('{first} 00:00:00+00') TO ('{ends} 00:00:00+00')"
        )
        summarize_as_filled(cursor, name)


def summarize_as_filled(cursor, table: str) -> None:
    """The partition's share of TIME_BRIN summarizes each range of pages as soon as the next one starts to fill
    (PostgreSQL's autosummarize), not when autovacuum next visits the partition: a range not yet summarized
    matches every read, so a month's tail since its last vacuum (up to a fifth of it) was read whole by the
    alert facts' last hour every minute. The option is the child index's own: a partitioned index takes none
    (health migration 0019 set it on the partitions made before)."""
    cursor.execute(
        """SELECT index.indexrelid::regclass::text FROM pg_index index
        JOIN pg_inherits link ON link.inhrelid = index.indexrelid
        WHERE link.inhparent = to_regclass(%s) AND index.indrelid = %s::regclass""",
        [TIME_BRIN, table],
    )
    for (index,) in cursor.fetchall():
        cursor.execute(f"ALTER INDEX {index} SET (autosummarize = on)")


def drop_month(partition: Partition) -> None:
    """Take one month out of the log, then delete it. Called outside a transaction, the log is locked only
    for the detach, a catalog change that costs the same at 1k rows and at 100M; deleting the month's files
    (seconds for 10M events: the file system frees the space as the transaction commits) comes after, in
    a transaction of its own that locks nothing the API or the pages use."""
    detach_month(partition)
    drop_detached(partition.name)


def detach_month(partition: Partition) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        # Check now any foreign key still deferred in this transaction (a table with pending checks cannot
        # be dropped); the task runs in a transaction of its own, where there are none.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {PARENT} DETACH PARTITION {partition.name}")


def drop_detached(name: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"DROP TABLE IF EXISTS {name}")


def detached_months() -> list[str]:
    """Months detached from the log but not dropped (a prune stopped between the two): the next one drops them."""
    if not partitioned():
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT relname FROM pg_class
            WHERE relkind = 'r' AND relname ~ %s
              AND NOT EXISTS (SELECT FROM pg_inherits WHERE pg_inherits.inhrelid = pg_class.oid)
            ORDER BY relname
            """,
            [rf"^{PARENT}_p\d{{4}}_\d{{2}}$"],
        )
        return [name for (name,) in cursor.fetchall()]


def estimated_rows(name: str) -> int:
    """The planner's row estimate of one partition (an exact count would read it whole)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT GREATEST(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass(%s)", [name]
        )
        row = cursor.fetchone()
    return row[0] if row else 0


def holds_unrolled(name: str, watermark: int) -> bool:
    """Whether a partition has an event the roll-up has not counted yet (one index probe)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT FROM {name} WHERE id > %s)", [watermark])
        return cursor.fetchone()[0]
