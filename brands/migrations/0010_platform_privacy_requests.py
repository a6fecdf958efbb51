"""Shopify's compliance requests are kept with what was held and what was done (brands.PlatformPrivacyRequest)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('brands', '0009_platform_connection_credentials'),
    ]

    operations = [
        migrations.CreateModel(
            name='PlatformPrivacyRequest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('platform', models.CharField(max_length=17)),
                ('shop_domain', models.CharField(max_length=253)),
                ('topic', models.CharField(choices=[('customers/data_request', 'A shopper asked for their data'), ('customers/redact', "Erase a shopper's data"), ('shop/redact', "Erase the shop's data")], max_length=32)),
                ('delivery_id', models.CharField(max_length=255)),
                ('customer_id', models.CharField(blank=True, default='', max_length=64)),
                ('email_hash', models.CharField(blank=True, default='', max_length=64)),
                ('orders', models.JSONField(blank=True, default=list)),
                ('held', models.JSONField(blank=True, default=dict)),
                ('done', models.TextField(blank=True, default='')),
                ('received_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('brand', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='brands.brand')),
                ('connection', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='brands.platformconnection')),
            ],
            options={
                'verbose_name': 'platform privacy request',
                'indexes': [models.Index(fields=['-received_at'], name='privacy_request_time_idx')],
                'constraints': [models.UniqueConstraint(fields=('platform', 'delivery_id'), name='privacy_request_delivery_unique')],
            },
        ),
    ]
