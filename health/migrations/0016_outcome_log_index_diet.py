"""The outcome log's index diet (docs/performance.md, "The index diet"): every event wrote an entry into
indexes that no page, task or API read needs.

- outcome_request_idx (request_id): random keys scattered its insertions (the most WAL of any index);
  a replayed event finds its first row by its time instead.
- outcome_order_idx (order_id): the admin's search across brands probes the brand and order index.
- outcome_time_idx (received_at DESC): replaced, on PostgreSQL, by a BRIN index on received_at
  (outcome_time_brin), which serves the ranges across brands (the alert facts' last hour, a day in the
  admin) for a few pages per partition and costs an event nothing until VACUUM summarizes its range;
  the admin lists newest ids first across brands. Django's state does not carry the BRIN index.
- the brand is no longer a constraint checked per event (health.references checks it daily).

Self-contained: it depends only on the migrations before it.
"""

import django.db.models.deletion
from django.db import migrations, models

BRIN = "CREATE INDEX IF NOT EXISTS outcome_time_brin ON health_outcomeevent USING brin (received_at)"


def add_brin(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BRIN)


def drop_brin(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS outcome_time_brin")


class Migration(migrations.Migration):
    dependencies = [
        ("brands", "0005_platform_connections"),
        ("health", "0015_endpoint_names_as_plain_text"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="outcomeevent", name="outcome_request_idx"),
        migrations.RemoveIndex(model_name="outcomeevent", name="outcome_time_idx"),
        migrations.RemoveIndex(model_name="outcomeevent", name="outcome_order_idx"),
        migrations.RunPython(add_brin, drop_brin, elidable=False),
        migrations.AlterField(
            model_name="outcomeevent",
            name="brand",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="outcome_events",
                to="brands.brand",
            ),
        ),
    ]
