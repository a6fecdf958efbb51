"""The outcome log in /admin/ for account managers: read-only, filterable, a fixed number of queries."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.admin.templatetags.admin_list import date_hierarchy
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from attribution.outcomes import Outcome
from health.log.models import DailyOutcomeCount, OutcomeEvent
from health.log.rollup import roll_up

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:health_outcomeevent_changelist")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def listed_order_ids(response) -> list[str]:
    return [event.order_id for event in response.context["cl"].result_list]


def test_brand_users_and_anonymous_do_not_get_in(client, alice):
    assert client.get(CHANGELIST).status_code == 302
    client.force_login(alice)
    assert client.get(CHANGELIST).status_code == 302


def test_it_lists_events_of_every_brand_with_a_link_to_the_brand(
    staff_client, brand, other_brand, make_event
):
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1")

    response = staff_client.get(CHANGELIST)

    assert response.status_code == 200
    assert sorted(listed_order_ids(response)) == ["ACME-1", "GLOBEX-1"]
    brand_url = reverse("admin:brands_brand_change", args=[brand.pk])
    assert f'<a href="{brand_url}">Acme</a>' in response.content.decode()


def test_events_are_read_only(staff_client, brand, make_event):
    event = make_event(brand)
    admin_url = reverse("admin:health_outcomeevent_change", args=[event.pk])

    assert staff_client.get(reverse("admin:health_outcomeevent_add")).status_code == 403
    assert staff_client.post(reverse("admin:health_outcomeevent_delete", args=[event.pk])).status_code == 403
    page = staff_client.get(admin_url)
    assert page.status_code == 200
    assert b'type="submit"' not in page.content.split(b'id="content-main"')[1].split(b"</form>")[0]
    staff_client.post(admin_url, {"outcome": "tracked", "order_id": "changed"})
    event.refresh_from_db()
    assert event.order_id == "ORD-1"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "DUP"}, []),  # order ids are case-sensitive
        ({"outcome": "duplicate_order"}, ["dup"]),
        ({"endpoint": "cancel"}, ["cancel"]),
        ({"is_test__exact": "1"}, ["test"]),
        ({"q": "dup"}, ["dup"]),
        ({"q": "du"}, []),  # exact order id search
    ],
)
def test_filters_and_search(staff_client, brand, make_event, params, expected):
    make_event(brand, Outcome.DUPLICATE_ORDER, order_id="dup")
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="cancel")
    make_event(brand, Outcome.TRACKED, is_test=True, order_id="test")

    assert listed_order_ids(staff_client.get(CHANGELIST, params)) == expected


def test_brand_and_date_filters(staff_client, brand, other_brand, make_event, now):
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1", ago=timedelta(days=3))

    by_brand = staff_client.get(CHANGELIST, {"brand__id__exact": other_brand.pk})
    by_day = staff_client.get(
        CHANGELIST,
        {"received_at__year": now.year, "received_at__month": now.month, "received_at__day": now.day},
    )

    assert listed_order_ids(by_brand) == ["GLOBEX-1"]
    assert listed_order_ids(by_day) == ["ACME-1"]


def test_a_page_is_a_fixed_number_of_queries(staff_client, brand, other_brand, make_event):
    def measure(n):
        OutcomeEvent.objects.all().delete()
        for i in range(n):
            make_event(brand if i % 2 else other_brand, order_id=f"E-{i}", ago=timedelta(minutes=i))
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(CHANGELIST).status_code == 200
        return len(queries)

    staff_client.get(CHANGELIST)
    assert measure(5) == measure(50)


def test_daily_counts_are_listed_read_only(staff_client, brand, make_event, now):
    make_event(brand, recorded_at=now - timedelta(hours=1))
    roll_up(now=now)
    count = DailyOutcomeCount.objects.get()

    response = staff_client.get(reverse("admin:health_dailyoutcomecount_changelist"))

    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [count]
    assert staff_client.get(reverse("admin:health_dailyoutcomecount_add")).status_code == 403
    assert (
        staff_client.post(reverse("admin:health_dailyoutcomecount_delete", args=[count.pk])).status_code
        == 403
    )


def test_an_event_links_to_the_page_the_brand_sees(staff_client, brand, make_event):
    event = make_event(brand)

    page = staff_client.get(reverse("admin:health_outcomeevent_change", args=[event.pk]))

    assert reverse("health:event", args=[event.pk]) in page.content.decode()


def test_the_date_drill_down_never_scans_for_distinct_dates(staff_client, brand, make_event):
    make_event(brand, received_at=datetime(2026, 1, 15, 10, tzinfo=UTC))
    make_event(brand, received_at=datetime(2026, 3, 10, 10, tzinfo=UTC))

    with CaptureQueriesContext(connection) as queries:
        months = staff_client.get(CHANGELIST)
    days = staff_client.get(CHANGELIST, {"received_at__year": 2026, "received_at__month": 3})

    assert not [q for q in queries if "DISTINCT" in q["sql"].upper()]
    titles = [choice["title"] for choice in date_hierarchy(months.context["cl"])["choices"]]
    assert titles == ["January 2026", "February 2026", "March 2026"]
    day_titles = [choice["title"] for choice in date_hierarchy(days.context["cl"])["choices"]]
    assert day_titles == ["March 10"]  # one event in March: first and last day are the same
