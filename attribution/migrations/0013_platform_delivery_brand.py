"""Platform deliveries keyed by brand, as every table of a brand's data (docs/scaling.md): the column is
filled from each delivery's connection, then required, and the brand leads the redelivery key."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_brand(apps, schema_editor):
    PlatformDelivery = apps.get_model("attribution", "PlatformDelivery")
    PlatformConnection = apps.get_model("brands", "PlatformConnection")
    PlatformDelivery.objects.filter(brand__isnull=True).update(
        brand_id=Subquery(
            PlatformConnection.objects.filter(pk=OuterRef("connection_id")).values("brand_id")[:1]
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("attribution", "0012_reconciliation_column_map"),
        ("brands", "0005_platform_connections"),
    ]

    operations = [
        migrations.AddField(
            model_name="platformdelivery",
            name="brand",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="brands.brand",
            ),
        ),
        migrations.RunPython(fill_brand, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="platformdelivery",
            name="brand",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="brands.brand",
            ),
        ),
        migrations.RemoveConstraint(model_name="platformdelivery", name="platform_delivery_once"),
        migrations.AddConstraint(
            model_name="platformdelivery",
            constraint=models.UniqueConstraint(
                condition=models.Q(("verified", True)),
                fields=("brand", "connection", "delivery_id"),
                name="platform_delivery_once",
            ),
        ),
    ]
