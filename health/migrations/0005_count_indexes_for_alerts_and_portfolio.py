from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class AddIndexWithoutBlockingWrites(AddIndexConcurrently):
    """CREATE INDEX CONCURRENTLY on PostgreSQL, where the counts are large and written every minute;
    a plain CREATE INDEX elsewhere (as in 0002)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):

    # Concurrent index builds cannot run inside a transaction.
    atomic = False

    dependencies = [
        ('health', '0004_alerts_incidents_notifications'),
    ]

    operations = [
        AddIndexWithoutBlockingWrites(
            model_name='dailyoutcomecount',
            index=models.Index(fields=['day'], name='daily_count_day_idx'),
        ),
        AddIndexWithoutBlockingWrites(
            model_name='hourlyoutcomecount',
            index=models.Index(condition=models.Q(('is_test', False)), fields=['outcome', 'hour'], name='hourly_count_outcome_idx'),
        ),
    ]
