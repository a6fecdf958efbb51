"""The events list's order-id prefix search and its "has warnings" filter get their indexes; the exact
order-id index goes, as the prefix one serves equality too. Built and dropped without blocking writes on
PostgreSQL (see 0002)."""

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations, models


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

    # Concurrent index builds cannot run inside a transaction.
    atomic = False

    dependencies = [
        ("health", "0006_events_with_warnings_counted"),
    ]

    operations = [
        AddIndexWithoutBlockingWrites(
            model_name="outcomeevent",
            index=models.Index(
                fields=["brand", "order_id"],
                name="outcome_brand_order_prefix_idx",
                opclasses=["int8_ops", "varchar_pattern_ops"],
            ),
        ),
        AddIndexWithoutBlockingWrites(
            model_name="outcomeevent",
            index=models.Index(
                condition=models.Q(has_warnings=True),
                fields=["brand", "-received_at", "-id"],
                name="outcome_brand_warned_idx",
            ),
        ),
        RemoveIndexWithoutBlockingWrites(model_name="outcomeevent", name="outcome_brand_order_idx"),
    ]
