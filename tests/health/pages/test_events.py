"""/health/events/: the brand's events, newest first, filtered and paged by keyset."""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import health.pages.events.views
from attribution.outcomes import Outcome
from brands.models import UserSettings
from health.log.models import OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db

URL = reverse("health:events")


def order_ids(response) -> list[str]:
    return [row["order_id"] for row in response.context["page"].rows]


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_lists_the_brands_events_newest_first(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, ago=timedelta(hours=3), order_id="A-old")
    make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(hours=1), order_id="A-new")
    make_event(brand, Outcome.TRACKED, endpoint="cancel", ago=timedelta(hours=2), order_id="A-mid")

    response = alice_client.get(URL)

    assert response.status_code == 200
    assert order_ids(response) == ["A-new", "A-mid", "A-old"]
    newest = response.context["page"].rows[0]
    assert (newest["endpoint"], newest["outcome"], newest["http_status"]) == (
        "order_confirmation",
        "duplicate_order",
        400,
    )
    html = response.content.decode()
    assert "duplicate_order" in html and ">400<" in html and "Cancel" in html


def test_a_brand_user_never_sees_another_brands_rows(alice_client, brand, other_brand, make_event):
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1")

    response = alice_client.get(URL)

    assert order_ids(response) == ["ACME-1"]
    assert b"GLOBEX-1" not in response.content
    # Not even by searching for it.
    assert order_ids(alice_client.get(URL, {"order_id": "GLOBEX-1"})) == []


def test_a_brand_user_asking_for_another_brand_gets_404(alice_client, other_brand):
    assert alice_client.get(URL, {"brand": other_brand.pk}).status_code == 404


def test_staff_can_pick_any_brand(client, staff, brand, other_brand, make_event):
    make_event(other_brand, order_id="GLOBEX-1")
    client.force_login(staff)

    response = client.get(URL, {"brand": other_brand.pk})

    assert order_ids(response) == ["GLOBEX-1"]


@pytest.fixture
def mixed(brand, make_event):
    make_event(brand, Outcome.TRACKED, order_id="live-tracked", ago=timedelta(hours=1))
    make_event(brand, Outcome.DUPLICATE_ORDER, order_id="live-dup", ago=timedelta(hours=2))
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="live-cancel", ago=timedelta(hours=3))
    make_event(brand, Outcome.TRACKED, is_test=True, order_id="test-tracked", ago=timedelta(hours=4))
    make_event(brand, Outcome.NO_ATTRIBUTION, order_id="old", ago=timedelta(days=10))


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"outcome": "tracked"}, ["live-tracked", "live-cancel", "test-tracked"]),
        ({"outcome": "duplicate_order"}, ["live-dup"]),
        ({"endpoint": "cancel"}, ["live-cancel"]),
        ({"endpoint": "order_confirmation", "outcome": "tracked"}, ["live-tracked", "test-tracked"]),
        ({"ns": "test"}, ["test-tracked"]),
        ({"ns": "live"}, ["live-tracked", "live-dup", "live-cancel", "old"]),
        ({"order_id": "live-dup"}, ["live-dup"]),
        ({"order_id": "live"}, ["live-tracked", "live-dup", "live-cancel"]),  # ids that start with it
        ({"order_id": "dup"}, []),  # a prefix search, not a substring search
    ],
)
def test_filters(alice_client, mixed, params, expected):
    assert order_ids(alice_client.get(URL, params)) == expected


def test_date_range_filter_takes_whole_utc_days(alice_client, brand, make_event, now):
    today = now.astimezone(UTC).date()
    make_event(brand, order_id="two-days-ago", ago=timedelta(days=2))
    make_event(brand, order_id="ten-days-ago", ago=timedelta(days=10))

    both = alice_client.get(URL, {"from": today - timedelta(days=10), "to": today})
    recent = alice_client.get(URL, {"from": today - timedelta(days=3)})
    older = alice_client.get(URL, {"to": today - timedelta(days=5)})

    assert order_ids(both) == ["two-days-ago", "ten-days-ago"]
    assert order_ids(recent) == ["two-days-ago"]
    assert order_ids(older) == ["ten-days-ago"]


def test_invalid_filters_are_explained_and_list_nothing(alice_client, brand, make_event):
    make_event(brand)

    response = alice_client.get(URL, {"outcome": "no_such_code", "from": "yesterday"})

    assert response.context["page"] is None
    assert b"Select a valid choice" in response.content
    assert b"Enter a valid date" in response.content


@pytest.mark.parametrize("dates", [{"to": "9999-12-31"}, {"from": "0001-01-01"}])
def test_dates_out_of_any_useful_range_are_explained_not_a_server_error(
    alice_client, brand, make_event, dates
):
    make_event(brand)

    response = alice_client.get(URL, dates)

    assert response.status_code == 200
    assert response.context["page"] is None
    assert b"Pick a date" in response.content


def test_pages_go_older_and_back_newer_by_keyset(alice_client, brand, make_event, now, monkeypatch):
    same_time = now - timedelta(hours=1)
    for i in range(7):  # ties on received_at are ordered by id
        make_event(brand, order_id=f"E{i}", received_at=same_time)
    for i in range(7, 12):
        make_event(brand, order_id=f"E{i}", received_at=same_time - timedelta(minutes=i))

    monkeypatch.setattr(health.pages.events.views, "EVENTS_PER_PAGE", 5)

    first = alice_client.get(URL)
    second = alice_client.get(URL, {"older": first.context["page"].older.encode()})
    third = alice_client.get(URL, {"older": second.context["page"].older.encode()})
    back = alice_client.get(URL, {"newer": third.context["page"].newer.encode()})
    top = alice_client.get(URL, {"newer": back.context["page"].newer.encode()})

    assert order_ids(first) == ["E6", "E5", "E4", "E3", "E2"]
    assert first.context["page"].newer is None
    assert order_ids(second) == ["E1", "E0", "E7", "E8", "E9"]
    assert order_ids(third) == ["E10", "E11"]
    assert third.context["page"].older is None
    assert order_ids(back) == order_ids(second)
    assert order_ids(top) == order_ids(first)
    assert top.context["page"].newer is None
    assert b"Older" in first.content and b"Newer" in second.content


def test_a_mangled_cursor_shows_the_first_page(alice_client, brand, make_event):
    make_event(brand, order_id="A-1")

    assert order_ids(alice_client.get(URL, {"older": "abc.def"})) == ["A-1"]


def test_hostile_values_are_shown_escaped(alice_client, brand, make_event):
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, order_id="<script>alert(1)</script>")

    html = alice_client.get(URL).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_number_of_queries_does_not_grow_with_events(alice_client, brand, make_event):
    def measure(n):
        OutcomeEvent.objects.all().delete()
        for i in range(n):
            make_event(brand, order_id=f"A-{i}", ago=timedelta(minutes=i))
        with CaptureQueriesContext(connection) as queries:
            response = alice_client.get(URL, {"ns": "live"})
        assert len(response.context["page"].rows) == min(n, 50)
        return len(queries)

    alice_client.get(URL)
    assert measure(5) == measure(60)


def test_a_user_of_several_brands_lists_the_picked_one(client, brand, other_brand, make_event):
    user = factories.MembershipFactory(brand=brand).user
    factories.MembershipFactory(brand=other_brand, user=user)
    make_event(brand, order_id="ACME-1")
    make_event(other_brand, order_id="GLOBEX-1")
    client.force_login(user)

    assert order_ids(client.get(URL, {"brand": other_brand.pk})) == ["GLOBEX-1"]
    assert order_ids(client.get(URL, {"brand": brand.pk})) == ["ACME-1"]


# --- what each row says, and the everyday filters -----------------------------------------------------------


def test_each_row_shows_the_plain_label_beside_the_code_as_its_endpoint_names_it(
    alice_client, brand, make_event
):
    make_event(brand, Outcome.TRACKED, order_id="A-1", ago=timedelta(hours=2))
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-1", ago=timedelta(hours=1))

    response = alice_client.get(URL)

    assert [row["label"] for row in response.context["page"].rows] == [
        "Cancelled: the order's commission was cancelled",
        "Attributed: a commission was created",
    ]
    html = response.content.decode()
    cancel = html.index('<code class="code">tracked</code>')
    assert html.index("Cancelled: the order&#x27;s commission was cancelled") > cancel


@pytest.fixture
def everyday(brand, make_event):
    make_event(
        brand,
        Outcome.TRACKED,
        order_id="1042",
        ago=timedelta(hours=1),
        warnings=["returnWindowClosesAt unreadable"],
    )
    make_event(brand, Outcome.DUPLICATE_ORDER, order_id="1042", ago=timedelta(hours=2))
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, order_id="10420", ago=timedelta(hours=3))
    make_event(
        brand, Outcome.HANDLER_ERROR, order_id="1043", ago=timedelta(hours=4)
    )  # service side: nothing to do
    make_event(brand, Outcome.NO_ATTRIBUTION, order_id="2001", ago=timedelta(hours=5))
    make_event(brand, Outcome.UNAUTHORIZED, endpoint="cancel", order_id="", ago=timedelta(hours=6))


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"action": "on"}, ["1042", "10420", ""]),
        ({"warnings": "on"}, ["1042"]),
        ({"order_id": "1042"}, ["1042", "1042", "10420"]),
        ({"order_id": "104"}, ["1042", "1042", "10420", "1043"]),
        ({"order_id": "10420"}, ["10420"]),
        ({"order_id": "104", "action": "on"}, ["1042", "10420"]),
        ({"order_id": "%"}, []),  # a LIKE wildcard is a character like any other
    ],
)
def test_everyday_filters(alice_client, everyday, params, expected):
    assert order_ids(alice_client.get(URL, params)) == expected


def test_an_event_that_carries_a_warning_is_flagged_in_the_list(alice_client, everyday):
    html = alice_client.get(URL).content.decode()

    rows = html[html.index("<tbody>") : html.index("</tbody>")].split("<tr")[1:]
    flagged = [row for row in rows if 'class="badge warn"' in row]
    assert len(flagged) == 1 and ">1042<" in flagged[0]
    assert sum('class="needs-action"' in row for row in rows) == 3


def test_the_filters_of_another_brand_find_nothing_of_it(alice_client, brand, other_brand, make_event):
    make_event(other_brand, Outcome.DUPLICATE_ORDER, order_id="GLOBEX-1", warnings=["x"])

    for params in ({"action": "on"}, {"warnings": "on"}, {"order_id": "GLOB"}):
        assert order_ids(alice_client.get(URL, params)) == []


def test_times_are_shown_in_the_users_time_zone_with_the_zone_named(client, alice, brand, make_event, now):
    UserSettings.objects.create(user=alice, time_zone="America/New_York")
    client.force_login(alice)
    event = make_event(brand)

    html = client.get(URL).content.decode()

    local = event.received_at.astimezone(ZoneInfo("America/New_York"))
    assert f"{local:%Y-%m-%d %H:%M:%S}" in html
    assert f"{event.received_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}" not in html
    assert "Received (America/New_York)" in html
    assert "Times are in <strong>America/New_York</strong>" in html
