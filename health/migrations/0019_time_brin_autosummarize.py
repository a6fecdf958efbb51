"""The outcome log's BRIN index on received_at (0016) summarizes each partition's page ranges as they fill
(autosummarize), on the partitions made before: health.log.partitions.summarize_as_filled sets it on each
month made from now on. An option of each partition's index (a partitioned index takes none); changing it
locks no reader or writer of the log. PostgreSQL only: SQLite has no BRIN index."""

from django.db import migrations

CHILDREN = """SELECT link.inhrelid::regclass::text FROM pg_inherits link
WHERE link.inhparent = to_regclass('outcome_time_brin')"""


def _set(value: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(CHILDREN)
            for (index,) in cursor.fetchall():
                cursor.execute(f"ALTER INDEX {index} SET (autosummarize = {value})")

    return run


class Migration(migrations.Migration):
    dependencies = [("health", "0018_refused_delivery_counts")]

    operations = [migrations.RunPython(_set("on"), _set("off"))]
