"""A connection a brand user adds on the setup page waits for an account manager's approval: the shop's domain
is unique among approved connections only. Every connection made before was made by an account manager (or
checked by one), so it counts as approved when it was made."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import F


def approved_when_made(apps, schema_editor):
    PlatformConnection = apps.get_model("brands", "PlatformConnection")
    PlatformConnection.objects.update(approved_at=F("created_at"))


class Migration(migrations.Migration):

    dependencies = [
        ('brands', '0006_review_holds'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='platformconnection',
            name='platform_connection_shop_unique',
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='approved_at',
            field=models.DateTimeField(blank=True, default=django.utils.timezone.now, editable=False, null=True),
        ),
        migrations.RunPython(approved_when_made, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='platformconnection',
            index=models.Index(condition=models.Q(('approved_at__isnull', True)), fields=['platform', 'shop_domain'], name='platform_conn_pending_idx'),
        ),
        migrations.AddConstraint(
            model_name='platformconnection',
            constraint=models.UniqueConstraint(condition=models.Q(('approved_at__isnull', False)), fields=('platform', 'shop_domain'), name='platform_connection_active_shop_unique', violation_error_message='This shop is already connected (to this or another brand).'),
        ),
        migrations.AddConstraint(
            model_name='platformconnection',
            constraint=models.UniqueConstraint(fields=('brand', 'platform', 'shop_domain'), name='platform_connection_brand_shop_unique', violation_error_message='Your brand already has this shop.'),
        ),
    ]
