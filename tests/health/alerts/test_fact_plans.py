"""The alert facts' per-brand probes stay one short index walk per brand however the log is shared out
(health/alerts/facts.py): beside a brand that holds most of the log, a small brand's last order must not
be found by walking the big brand's events."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from brands.models import Brand
from health.alerts.facts import _last_orders
from health.log.models import OutcomeEvent

pytestmark = pytest.mark.django_db


def test_the_last_order_of_each_brand_is_probed_on_the_brand_index_beside_a_big_brand(brand, other_brand):
    if connection.vendor != "postgresql":
        pytest.skip("the plan is PostgreSQL's; SQLite has no partitions and plans otherwise")
    now = timezone.now()
    def event(owner, ago):
        return OutcomeEvent(
            brand=owner,
            endpoint="order_confirmation",
            outcome="no_attribution",
            http_status=200,
            received_at=now - ago,
        )

    OutcomeEvent.objects.bulk_create([event(brand, timedelta(minutes=n + 1)) for n in range(3000)])
    OutcomeEvent.objects.bulk_create([event(other_brand, timedelta(days=3))])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE health_outcomeevent")
    query = _last_orders(Brand.objects.all(), now)

    with connection.cursor() as cursor:
        sql, params = query.query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    # Partitions name their copies of an index after its columns: (brand, endpoint, received_at), and
    # received_at alone (outcome_time_idx).
    assert "brand_id_endpoint_received_at_idx" in plan or "outcome_brand_endpoint_idx" in plan, plan
    assert not re.search(r"_p\d{4}_\d{2}_received_at_idx|_default_received_at_idx|outcome_time_idx", plan), plan
    assert dict(query) == {brand.pk: now - timedelta(minutes=1), other_brand.pk: now - timedelta(days=3)}
