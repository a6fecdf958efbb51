"""Events carry `has_warnings` and the daily and hourly counts how many of theirs had warnings, so the
overview counts warnings without reading the log. Rows written before are filled in here: their flag
from their warnings, and the counts' `warned` from the events already rolled up (events pruned before
this migration are no longer there to count)."""

from datetime import UTC

from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import TruncDate, TruncHour


def fill_in(apps, schema_editor):
    OutcomeEvent = apps.get_model("health", "OutcomeEvent")
    DailyOutcomeCount = apps.get_model("health", "DailyOutcomeCount")
    HourlyOutcomeCount = apps.get_model("health", "HourlyOutcomeCount")
    RollupWatermark = apps.get_model("health", "RollupWatermark")

    OutcomeEvent.objects.exclude(warnings=[]).update(has_warnings=True)
    watermark = RollupWatermark.objects.values_list("last_event_id", flat=True).first() or 0
    warned = OutcomeEvent.objects.filter(has_warnings=True, id__lte=watermark, brand__isnull=False).order_by()
    keys = ("brand_id", "bucket", "endpoint", "outcome", "is_test")
    for model, field, trunc in (
        (DailyOutcomeCount, "day", TruncDate("received_at", tzinfo=UTC)),
        (HourlyOutcomeCount, "hour", TruncHour("received_at", tzinfo=UTC)),
    ):
        for group in warned.annotate(bucket=trunc).values(*keys).annotate(n=Count("id")):
            model.objects.filter(
                brand_id=group["brand_id"],
                endpoint=group["endpoint"],
                outcome=group["outcome"],
                is_test=group["is_test"],
                **{field: group["bucket"]},
            ).update(warned=group["n"])


class Migration(migrations.Migration):

    dependencies = [
        ("health", "0005_count_indexes_for_alerts_and_portfolio"),
    ]

    operations = [
        migrations.AddField(
            model_name="outcomeevent",
            name="has_warnings",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="dailyoutcomecount",
            name="warned",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="hourlyoutcomecount",
            name="warned",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(fill_in, migrations.RunPython.noop),
    ]
