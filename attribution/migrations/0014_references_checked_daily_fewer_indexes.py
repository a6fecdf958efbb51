"""The order path's references and indexes (docs/performance.md, "Foreign keys on the hot path" and
"The index diet"): the order's brand, property, click, code and creator, the commission's brand and
creator and the history rows' brands are checked by the code and daily by health.references instead of
a parent-row lock per write; the click, code and creator of an order are indexed only where set, the
statement of a commission only once it has one, and an amount change's brand and commission not twice.
Self-contained: it depends only on the migrations before it."""


import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('attribution', '0013_platform_delivery_brand'),
        ('brands', '0005_platform_connections'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='commission',
            name='commission_statement_idx',
        ),
        migrations.AlterField(
            model_name='amountchange',
            name='brand',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='brands.brand'),
        ),
        migrations.AlterField(
            model_name='amountchange',
            name='commission',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='amount_changes', to='attribution.commission'),
        ),
        migrations.AlterField(
            model_name='commission',
            name='brand',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='commissions', to='brands.brand'),
        ),
        migrations.AlterField(
            model_name='commission',
            name='creator',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='commissions', to='brands.creator'),
        ),
        migrations.AlterField(
            model_name='commissionstatechange',
            name='brand',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='brands.brand'),
        ),
        migrations.AlterField(
            model_name='order',
            name='brand',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='orders', to='brands.brand'),
        ),
        migrations.AlterField(
            model_name='order',
            name='click',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='orders', to='attribution.click'),
        ),
        migrations.AlterField(
            model_name='order',
            name='creator',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='orders', to='brands.creator'),
        ),
        migrations.AlterField(
            model_name='order',
            name='discount_code',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='orders', to='brands.discountcode'),
        ),
        migrations.AlterField(
            model_name='order',
            name='property',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='brands.property'),
        ),
        migrations.AddIndex(
            model_name='commission',
            index=models.Index(condition=models.Q(('statement__isnull', False)), fields=['statement', 'creator'], name='commission_statement_idx'),
        ),
        migrations.AddIndex(
            model_name='order',
            index=models.Index(condition=models.Q(('click__isnull', False)), fields=['click'], name='order_click_idx'),
        ),
        migrations.AddIndex(
            model_name='order',
            index=models.Index(condition=models.Q(('discount_code__isnull', False)), fields=['discount_code'], name='order_discount_code_idx'),
        ),
        migrations.AddIndex(
            model_name='order',
            index=models.Index(condition=models.Q(('creator__isnull', False)), fields=['creator'], name='order_creator_idx'),
        ),
    ]
