"""The outcome log keeps an endpoint as plain text: the storefront platforms add their own endpoints
(attribution.platforms.registry) and the labels live above the log (attribution.outcomes.endpoints). No SQL:
choices are not in the database."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('health', '0014_platform_change_endpoints'),
    ]

    operations = [
        migrations.AlterField(
            model_name='dailyoutcomecount',
            name='endpoint',
            field=models.CharField(max_length=24),
        ),
        migrations.AlterField(
            model_name='hourlyoutcomecount',
            name='endpoint',
            field=models.CharField(max_length=24),
        ),
        migrations.AlterField(
            model_name='outcomeevent',
            name='endpoint',
            field=models.CharField(max_length=24),
        ),
    ]
