"""A connection's platform is a plain name: which platforms exist is attribution.platforms.registry's to say (the
connection forms and the model's clean() ask it, through brands.known_platforms), so a new platform needs no
migration. The CHECK that listed Shopify and WooCommerce gives way to one on the name's shape, and the column
holds as long a name as the registry allows (17 characters: widening a varchar rewrites nothing on
PostgreSQL)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('brands', '0007_pending_platform_connections'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='platformconnection',
            name='platform_connection_platform_valid',
        ),
        migrations.AlterField(
            model_name='platformconnection',
            name='platform',
            field=models.CharField(max_length=17),
        ),
        migrations.AddConstraint(
            model_name='platformconnection',
            constraint=models.CheckConstraint(condition=models.Q(('platform__regex', '\\A[a-z][a-z0-9_]{0,16}\\Z')), name='platform_connection_platform_name_shape'),
        ),
    ]
