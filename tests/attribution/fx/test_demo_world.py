"""The demo world's main brand has orders in EUR and GBP, converted into its reporting currency at the ECB
rates of their dates, and the demo document names that currency (docs/currencies.md)."""

import io
import json
from datetime import date

from django.core.management import call_command

from attribution.fx import loading
from attribution.models import Commission


def test_seed_demo_gives_the_main_brand_orders_in_eur_and_gbp_converted_into_usd(db, tmp_path, settings):
    settings.DEBUG = True
    loading.load_bundled(since=date(2026, 10, 1))  # the migration's, in case a transactional test emptied it
    path = tmp_path / "demo-world.json"

    call_command("seed_demo", "--json", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    call_command("seed_demo", "--json", str(path), stdout=io.StringIO(), stderr=io.StringIO())  # kept

    document = json.loads(path.read_text())
    assert document["fx"]["reporting_currency"] == "USD"
    assert document["fx"]["orders"] == ["DEMO-FX-EUR-1", "DEMO-FX-GBP-1"]
    converted = {
        c.currency: c for c in Commission.objects.filter(order__order_id__in=document["fx"]["orders"])
    }
    assert set(converted) == {"EUR", "GBP"}
    for commission in converted.values():
        assert commission.reporting_currency == "USD"
        # the ECB's rate, or past the bundled history's end the demo's own (attribution/management/demo/rates.py)
        assert commission.fx_source in ("ECB", "demo") and commission.reporting_amount > 0
        assert commission.fx_rate_date <= date.today()
