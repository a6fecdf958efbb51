"""/health/export.csv: the filtered events list as a streamed CSV file."""

import csv
import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from attribution.outcomes import Outcome
from brands.models import UserSettings
from health.log.models import OutcomeEvent
from health.pages.events import queries as event_queries
from health.pages.events.export import HEADER

pytestmark = pytest.mark.django_db

URL = reverse("health:export")


def rows(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_the_file_starts_with_a_byte_order_mark_so_spreadsheets_read_it_as_utf8(
    alice_client, brand, make_event
):
    make_event(brand, order_id="Bestellung-Müller-1")

    raw = b"".join(alice_client.get(URL).streaming_content)

    assert raw.startswith(b"\xef\xbb\xbfreceived_at,")
    assert "Bestellung-Müller-1" in raw.decode("utf-8-sig")


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_streams_a_csv_file(alice_client, brand, make_event):
    event = make_event(brand, Outcome.DUPLICATE_ORDER, order_id="A-1", warnings=["late"])

    response = alice_client.get(URL)

    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="tracking-health-acme-')
    [row] = rows(response)
    assert list(row) == HEADER
    assert row == {
        "received_at": event.received_at.isoformat(),
        "endpoint": "order_confirmation",
        "order_id": "A-1",
        "outcome": "duplicate_order",
        "outcome_label": "Order id already received; this repeat was ignored",
        "http_status": "400",
        "namespace": "live",
        "event_id": str(event.pk),
        "request_id": "",
        "warnings": '["late"]',
        "time_zone": "UTC",
    }


def test_it_exports_the_filtered_list_newest_first(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, order_id="A-1", ago=timedelta(hours=3))
    make_event(brand, Outcome.TRACKED, order_id="A-2", ago=timedelta(hours=1))
    make_event(brand, Outcome.TRACKED, order_id="T-1", is_test=True)
    make_event(brand, Outcome.NO_ATTRIBUTION, order_id="A-3")
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-1")

    exported = rows(
        alice_client.get(URL, {"outcome": "tracked", "ns": "live", "endpoint": "order_confirmation"})
    )

    assert [r["order_id"] for r in exported] == ["A-2", "A-1"]
    assert [r["order_id"] for r in rows(alice_client.get(URL, {"order_id": "A-1"}))] == ["A-1", "A-1"]
    assert [r["namespace"] for r in rows(alice_client.get(URL, {"ns": "test"}))] == ["test"]


def test_it_exports_every_matching_event_across_chunks(alice_client, brand, make_event, monkeypatch):
    monkeypatch.setattr(event_queries, "EXPORT_CHUNK_SIZE", 50)
    for i in range(120):
        make_event(brand, order_id=f"A-{i}", ago=timedelta(minutes=i))

    exported = rows(alice_client.get(URL))

    assert [r["order_id"] for r in exported] == [f"A-{i}" for i in range(120)]


def test_another_brands_lines_are_never_exported(alice_client, brand, other_brand, make_event):
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1")

    body = b"".join(alice_client.get(URL).streaming_content).decode("utf-8-sig")

    assert "ACME-1" in body and "GLOBEX-1" not in body
    assert alice_client.get(URL, {"brand": other_brand.pk}).status_code == 404


def test_staff_export_the_picked_brand(client, staff, brand, other_brand, make_event):
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1")
    client.force_login(staff)

    assert [r["order_id"] for r in rows(client.get(URL, {"brand": other_brand.pk}))] == ["GLOBEX-1"]


@pytest.mark.parametrize("value", ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd"])
def test_cells_that_a_spreadsheet_would_run_get_a_leading_quote(alice_client, brand, make_event, value):
    make_event(brand, order_id=value)

    [row] = rows(alice_client.get(URL))

    assert row["order_id"] == "'" + value


def test_ordinary_values_are_left_alone(alice_client, brand, make_event):
    make_event(brand, order_id="A-1=2")

    [row] = rows(alice_client.get(URL))

    assert row["order_id"] == "A-1=2"


@pytest.mark.parametrize(
    "filters, error",
    [({"endpoint": "nope"}, b"Select a valid choice"), ({"to": "9999-12-31"}, b"Pick a date")],
)
def test_invalid_filters_are_refused(alice_client, filters, error):
    response = alice_client.get(URL, filters)

    assert response.status_code == 400
    assert error in response.content


def test_the_number_of_queries_does_not_grow_with_events(alice_client, brand, make_event):
    def measure(n):
        OutcomeEvent.objects.all().delete()
        for i in range(n):
            make_event(brand, order_id=f"A-{i}")
        with CaptureQueriesContext(connection) as queries:
            exported = rows(alice_client.get(URL))
        assert len(exported) == n
        return len(queries)

    alice_client.get(URL)
    assert measure(5) == measure(50)


def test_a_cancel_that_took_effect_is_exported_as_cancelled(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-1")

    [row] = rows(alice_client.get(URL))

    assert (row["outcome"], row["outcome_label"]) == (
        "tracked",
        "Cancelled: the order's commission was cancelled",
    )


def test_times_are_in_the_readers_time_zone_which_the_file_names(client, alice, brand, make_event):
    UserSettings.objects.create(user=alice, time_zone="Europe/Berlin")
    client.force_login(alice)
    event = make_event(brand, order_id="A-1")

    [row] = rows(client.get(URL))

    local = event.received_at.astimezone(ZoneInfo("Europe/Berlin"))
    assert row["received_at"] == local.isoformat()
    assert datetime.fromisoformat(row["received_at"]) == event.received_at
    assert row["time_zone"] == "Europe/Berlin"


def test_the_export_of_the_warned_events_has_only_those(alice_client, brand, make_event):
    make_event(brand, order_id="A-1", warnings=["returnWindowClosesAt unreadable"])
    make_event(brand, order_id="A-2")

    exported = rows(alice_client.get(URL, {"warnings": "on"}))

    assert [(row["order_id"], row["warnings"]) for row in exported] == [
        ("A-1", '["returnWindowClosesAt unreadable"]')
    ]
