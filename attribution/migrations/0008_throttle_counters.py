"""The throttles' counters (attribution.api.throttles). On PostgreSQL the table is UNLOGGED: a count needs no
durability (a crash empties it, which only forgets part of a minute), and a transaction that writes only
to an unlogged table commits without waiting for the WAL to reach the disk, which is most of the cost of
one more statement on every request."""

from django.db import migrations, models


def unlogged(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE attribution_ratecounter SET UNLOGGED")


class Migration(migrations.Migration):

    dependencies = [
        ('attribution', '0007_dead_letters_and_spool_backlog'),
    ]

    operations = [
        migrations.CreateModel(
            name='RateCounter',
            fields=[
                ('key', models.CharField(max_length=200, primary_key=True, serialize=False)),
                ('window_ends', models.BigIntegerField()),
                ('count', models.PositiveIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(unlogged, migrations.RunPython.noop),
    ]
