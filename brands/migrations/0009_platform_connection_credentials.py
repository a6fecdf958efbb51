"""A connection learns how it was made (typed in, Shopify OAuth, WooCommerce key handover, a pasted Admin API
token), keeps the platform API's credential sealed, the shop's identity as its API answered it, and when it was
disconnected (uninstalled or revoked). Every new column has a default: existing rows stay typed-in connections."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('brands', '0008_platform_name_shape_check'),
    ]

    operations = [
        migrations.AddField(
            model_name='platformconnection',
            name='api_scopes',
            field=models.CharField(blank=True, default='', editable=False, help_text='The scopes the credential holds, comma-separated (read_orders; WooCommerce: read or read_write).', max_length=255, verbose_name='granted scopes'),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='connected_via',
            field=models.CharField(choices=[('typed', "Typed in (its ownership proved by an account manager's approval)"), ('oauth', 'Shopify app OAuth'), ('key_handover', 'WooCommerce key handover'), ('admin_token', 'Admin API token pasted by an account manager')], default='typed', editable=False, max_length=16),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='credential',
            field=models.TextField(blank=True, default='', editable=False),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='disconnect_reason',
            field=models.TextField(blank=True, default='', editable=False),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='disconnected_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='platform_shop_id',
            field=models.CharField(blank=True, default='', editable=False, max_length=100),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='shop_currency',
            field=models.CharField(blank=True, default='', editable=False, max_length=3),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='shop_timezone',
            field=models.CharField(blank=True, default='', editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name='platformconnection',
            name='site_url',
            field=models.CharField(blank=True, default='', editable=False, help_text="WooCommerce: the site's origin (https://shop.example), which its API is called at.", max_length=255),
        ),
    ]
