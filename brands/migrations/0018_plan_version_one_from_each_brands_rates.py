"""Version 1 of every brand's commission plan is what the brand paid until now: its rate, its
returning-customer rate as a rule, and as the base the "order value counted" of its platform connections
(the full total when one counts it). On PostgreSQL a trigger refuses any edit of a stored version."""

from datetime import UTC, datetime

from django.db import migrations

SINCE_ALWAYS = datetime(1970, 1, 1, tzinfo=UTC)

REFUSE_EDITS = """
CREATE OR REPLACE FUNCTION plan_version_never_edited() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a commission plan version is never edited: make a new version';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER plan_version_never_edited BEFORE UPDATE ON brands_planversion
    FOR EACH ROW EXECUTE FUNCTION plan_version_never_edited();
"""
ALLOW_EDITS = """
DROP TRIGGER IF EXISTS plan_version_never_edited ON brands_planversion;
DROP FUNCTION IF EXISTS plan_version_never_edited();
"""


def version_one(apps, schema_editor):
    Brand = apps.get_model("brands", "Brand")
    PlanVersion = apps.get_model("brands", "PlanVersion")
    PlatformConnection = apps.get_model("brands", "PlatformConnection")
    counts_total = set(
        PlatformConnection.objects.filter(amount_counted="total").values_list("brand_id", flat=True)
    )
    shop_currency = dict(
        PlatformConnection.objects.exclude(shop_currency="").values_list("brand_id", "shop_currency")
    )
    rows = []
    for brand in Brand.objects.all().iterator():
        rules = []
        if brand.returning_commission_rate_percent is not None:
            rules.append(
                {
                    "name": "Returning customers",
                    "when": {"customer": "returning"},
                    "percent": str(brand.returning_commission_rate_percent),
                }
            )
        total = brand.id in counts_total
        rows.append(
            PlanVersion(
                brand_id=brand.id,
                version=1,
                effective_from=SINCE_ALWAYS,
                created_by="migration",
                document={
                    "currency": brand.reporting_currency or shop_currency.get(brand.id, "").upper() or "USD",
                    "base": {"after_discounts": True, "shipping": total, "tax": total},
                    "default": {"percent": str(brand.commission_rate_percent)},
                    "rules": rules,
                    "apply_to": "new_orders",
                },
            )
        )
    PlanVersion.objects.bulk_create(rows, batch_size=500)


def refuse_edits(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REFUSE_EDITS)


def allow_edits(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(ALLOW_EDITS)


class Migration(migrations.Migration):
    dependencies = [("brands", "0017_commission_plan_versions")]

    operations = [
        migrations.RunPython(version_one, migrations.RunPython.noop),
        migrations.RunPython(refuse_edits, allow_edits),
    ]
