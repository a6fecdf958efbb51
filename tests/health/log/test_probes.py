"""Each brand's newest events are probed on the log's (brand, column, -received_at) indexes however the log
is shared out (health/log/probes.py): beside a brand that holds most of the log, neither a small brand's
probe nor the big brand's own may walk the log's time index."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from brands.models import Brand
from health.alerts.events.facts import _last_orders, newest_order
from health.log.models import OutcomeEvent
from health.pages.overview.queries import integration_status
from health.pages.portfolio.queries import portfolio

pytestmark = pytest.mark.django_db

# Partitions name their copies of an index after its columns; outcome_time_idx is received_at alone.
TIME_INDEX = re.compile(r"_p\d{4}_\d{2}_received_at_idx|_default_received_at_idx|outcome_time_idx")


@pytest.fixture
def log_with_a_big_brand(brand, other_brand):
    if connection.vendor != "postgresql":
        pytest.skip("the plans are PostgreSQL's; SQLite has no partitions and plans otherwise")
    now = timezone.now()

    def event(owner, ago, **fields):
        return OutcomeEvent(
            brand=owner,
            endpoint=fields.pop("endpoint", "order_confirmation"),
            outcome=fields.pop("outcome", "no_attribution"),
            http_status=200,
            received_at=now - ago,
            **fields,
        )

    OutcomeEvent.objects.bulk_create(
        [
            event(brand, timedelta(minutes=n + 1), endpoint=("cancel", "update", "order_confirmation")[n % 3])
            for n in range(3000)
        ]
    )
    OutcomeEvent.objects.bulk_create([event(other_brand, timedelta(days=3), outcome="tracked")])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE health_outcomeevent")
    return now


def plan(sql: str, params=()) -> str:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def probes_of(call) -> list[str]:
    """The plans of the outcome-log reads `call` makes."""
    with CaptureQueriesContext(connection) as queries:
        call()
    return [plan(q["sql"]) for q in queries.captured_queries if "health_outcomeevent" in q["sql"]]


def test_the_alert_facts_probe_each_brands_last_order_on_its_index(log_with_a_big_brand, brand, other_brand):
    now = log_with_a_big_brand
    query = _last_orders(Brand.objects.all(), now)

    found = plan(*query.query.sql_with_params())

    assert "brand_id_endpoint_received_at" in found and not TIME_INDEX.search(found), found
    assert {pk: newest_order(lasts)[0] for pk, *lasts in query} == {
        brand.pk: now - timedelta(minutes=3),
        other_brand.pk: now - timedelta(days=3),
    }


@pytest.mark.parametrize("owner", ["brand", "other_brand"])
def test_the_overview_probes_the_latest_of_each_kind_on_the_brands_indexes(
    log_with_a_big_brand, owner, request
):
    shown = request.getfixturevalue(owner)

    plans = probes_of(lambda: integration_status(shown, log_with_a_big_brand))

    assert len(plans) == 5  # last order, tracked, cancel, update, test
    for found in plans:
        assert not TIME_INDEX.search(found), found


def test_the_portfolio_probes_each_brands_last_event_on_its_index(log_with_a_big_brand):
    plans = probes_of(lambda: portfolio(Brand.objects.all(), now=log_with_a_big_brand))

    [last_events] = [p for p in plans if "SubPlan" in p]
    assert "brand_id_is_test_received_at" in last_events and not TIME_INDEX.search(last_events), last_events
