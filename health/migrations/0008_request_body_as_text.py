"""The outcome log keeps request bodies as text (numbers as sent), and no row keeps an address.

Rows written before kept the parsed body as JSON, with only a top-level customer_email hashed: an
address in a list, a nested object or another field stayed. Each such row is redacted once here, as
new rows are (brands.privacy); a preview of a body that was not JSON becomes the preview text itself.
"""

import json

from django.db import migrations, models
from django.db.models import Q

BATCH = 1000


def redact_kept_bodies(apps, schema_editor):
    from brands.privacy import redact_body  # a pure function: the same redaction new rows get

    OutcomeEvent = apps.get_model("health", "OutcomeEvent")
    rows = OutcomeEvent.objects.filter(
        Q(request_body__contains="@") | Q(request_body__icontains="%40") | Q(request_body__contains="_unparsed")
    ).only("id", "request_body")
    changed = []
    for row in rows.iterator(chunk_size=BATCH):
        text = row.request_body
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        if isinstance(document, dict) and set(document) == {"_unparsed"}:
            text = str(document["_unparsed"])
        kept = redact_body(text)
        if kept != row.request_body:
            row.request_body = kept
            changed.append(row)
        if len(changed) >= BATCH:
            OutcomeEvent.objects.bulk_update(changed, ["request_body"])
            changed = []
    if changed:
        OutcomeEvent.objects.bulk_update(changed, ["request_body"])


class Migration(migrations.Migration):
    dependencies = [
        ("health", "0007_order_prefix_and_warned_indexes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="outcomeevent",
            name="request_body",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.RunPython(redact_kept_bodies, migrations.RunPython.noop),
    ]
