"""Commissions stored before conversion existed, converted once at their own orders' dates into their brands'
reporting currencies (attribution.fx.backfill; `convert_commissions` does the same)."""

from django.db import migrations


def convert(apps, schema_editor):
    from attribution.fx import backfill, lookup

    try:
        backfill.convert_unconverted(
            commission_model=apps.get_model("attribution", "Commission"),
            rate_model=apps.get_model("attribution", "FxRate"),
            brand_model=apps.get_model("brands", "Brand"),
            connection_model=apps.get_model("brands", "PlatformConnection"),
        )
    finally:
        lookup.forget()


class Migration(migrations.Migration):
    dependencies = [
        ("attribution", "0023_load_bundled_fx_rates"),
        ("brands", "0011_brand_reporting_currency"),
    ]

    operations = [migrations.RunPython(convert, migrations.RunPython.noop)]
