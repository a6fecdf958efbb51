"""A commission keeps its order's attribution path and returning-shopper flag, copied when it is created, so
the Creators page reads a period's commissions from one table (docs/performance.md, "The Creators page at
100,000 orders"). The existing commissions take their order's, in batches of BATCH commissions, each its
own transaction, so no commission stays locked for the whole copy. The brand's commissions of a period get
an index (brand, test, time) that replaces (brand, state, time): one index entry per commission, as before.

Indexes are built and dropped without blocking writes on PostgreSQL (as health 0002). The columns have no
default once added: a writer that does not name them is refused (an order confirmation refused while the
previous code still serves goes to the spool and is replayed by the new code, docs/reliability.md).
"""

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations, models

BATCH = 10_000


def copy_from_orders(apps, schema_editor):
    Commission = apps.get_model("attribution", "Commission")
    Order = apps.get_model("attribution", "Order")
    commissions, orders = Commission._meta.db_table, Order._meta.db_table
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT min(id), max(id) FROM {commissions}")
        first, last = cursor.fetchone()
    if first is None:
        return
    for start in range(first, last + 1, BATCH):
        # A correlated read of the order by its primary key: the same statement on SQLite and PostgreSQL.
        with connection.cursor() as cursor:
            cursor.execute(
                f"""
                UPDATE {commissions} SET
                    attribution = (SELECT o.attribution FROM {orders} o WHERE o.id = {commissions}.order_id),
                    is_returning_customer = (
                        SELECT o.is_returning_customer FROM {orders} o WHERE o.id = {commissions}.order_id
                    )
                WHERE id >= %s AND id < %s
                """,
                [start, start + BATCH],
            )


class AddIndexWithoutBlockingWrites(AddIndexConcurrently):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class RemoveIndexWithoutBlockingWrites(RemoveIndexConcurrently):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.RemoveIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.RemoveIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    # Concurrent index builds cannot run inside a transaction; each batch of the copy commits on its own.
    atomic = False

    dependencies = [
        ("attribution", "0017_brand_change_history_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="commission",
            name="attribution",
            field=models.CharField(
                choices=[
                    ("click", "Click"),
                    ("code", "Discount code"),
                    ("shopper", "Known shopper"),
                    ("none", "None"),
                ],
                default="none",
                max_length=8,
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="commission",
            name="is_returning_customer",
            field=models.BooleanField(default=False),
            preserve_default=False,
        ),
        migrations.RunPython(copy_from_orders, migrations.RunPython.noop, atomic=False),
        migrations.AddConstraint(
            model_name="commission",
            constraint=models.CheckConstraint(
                condition=models.Q(("attribution__in", ["click", "code", "shopper", "none"])),
                name="commission_attribution_valid",
            ),
        ),
        AddIndexWithoutBlockingWrites(
            model_name="commission",
            index=models.Index(fields=["brand", "is_test", "created_at"], name="commission_brand_time_idx"),
        ),
        RemoveIndexWithoutBlockingWrites(
            model_name="commission",
            name="commission_brand_state_idx",
        ),
    ]
