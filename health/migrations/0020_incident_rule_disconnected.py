"""Incidents of a new rule: a shop's connection disconnected (health.alerts.connection_rules). Choices only."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('health', '0019_time_brin_autosummarize'),
    ]

    operations = [
        migrations.AlterField(
            model_name='incident',
            name='rule',
            field=models.CharField(choices=[('silence', 'Order confirmations stopped'), ('problem_spike', 'Problem spike'), ('new_problem', 'New problem'), ('service_side', 'Service-side fault'), ('capture_drop', 'Capture rate below normal'), ('review_overdue', 'Holds waiting for review'), ('code_leak', 'Code leak suspected'), ('refund_outlier', "Refund rate above the brand's"), ('disconnected', 'Shop disconnected: connect it again')], max_length=16),
        ),
    ]
