"""/health/: the overview's chart, inline SVG: a bar per day or hour, what it counts as tracked, its
links to the events of a day and its labels in the user's time zone."""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from attribution.outcomes import Outcome
from brands.models import UserSettings

pytestmark = pytest.mark.django_db


URL = reverse("health:overview")


def test_the_chart_is_inline_svg_with_one_bar_per_day(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=1))
    make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(days=1))

    response = alice_client.get(URL, {"period": "7d"})

    html = response.content.decode()
    assert html.count("<svg") == 2 and "<script" not in html  # one for wide screens, one for phones
    summary = response.context["summary"]
    for chart in (summary.chart, summary.narrow_chart):
        assert len(chart.bars) == 7
        assert sorted(s.group for bar in chart.bars for s in bar.segments) == ["action", "tracked"]
    assert html.count('<rect class="g-') == 4


def test_the_24_hour_chart_has_one_bar_per_hour(alice_client, brand, make_event):
    make_event(brand, ago=timedelta(hours=3))

    response = alice_client.get(URL, {"period": "24h"})

    assert len(response.context["summary"].chart.bars) == 24
    assert response.context["summary"].total == 1


def test_the_chart_counts_as_tracked_exactly_what_the_tracked_card_counts(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, order_id="A-1")
    make_event(brand, Outcome.TRACKED, order_id="A-2")
    make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-1")
    make_event(brand, Outcome.TRACKED, endpoint="update", order_id="A-2")

    summary = alice_client.get(URL).context["summary"]

    for chart in (summary.chart, summary.narrow_chart):
        segments = [s for bar in chart.bars for s in bar.segments]
        tracked = [s for s in segments if s.group == "tracked"]
        changed = [s for s in segments if s.group == "changed"]
        assert [s.title.split(": ")[1] for s in tracked] == ["2 tracked orders"]
        assert [s.title.split(": ")[1] for s in changed] == ["2 cancels and updates applied"]
    assert summary.orders_tracked == 2


def test_each_bar_links_to_the_events_of_its_day(alice_client, brand, make_event, now):
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=2))
    day = (now - timedelta(days=2)).astimezone(UTC).date().isoformat()

    response = alice_client.get(URL, {"period": "7d"})

    html = response.content.decode()
    link = f'href="{reverse("health:events")}?brand={brand.pk}&amp;ns=live&amp;from={day}&amp;to={day}"'
    assert html.count(link) == 2  # the wide chart's bar and the phone chart's
    assert [bar.day.isoformat() for bar in response.context["summary"].chart.bars].count(day) == 1


@pytest.mark.parametrize(
    "params, buckets",
    [
        ({"period": "24h"}, 24),
        ({"period": "7d"}, 7),
        ({"period": "30d"}, 30),
        ({"period": "custom", "from": "2026-01-01", "to": "2026-01-12"}, 12),
        ({"period": "custom", "from": "2026-01-01", "to": "2026-03-10"}, 69),
    ],
)
def test_the_last_bar_always_has_its_label(alice_client, params, buckets):
    summary = alice_client.get(URL, params).context["summary"]

    for chart in (summary.chart, summary.narrow_chart):
        assert len(chart.bars) == buckets
        last_label = chart.x_labels[-1]
        assert last_label[1] == summary.chart.x_labels[-1][1]  # the same bucket, on both charts
        # The label of the last bar: over it, or end-aligned at the right edge when it would be cut off.
        last = chart.bars[-1]
        assert (
            last_label[0] == pytest.approx(last.x + last.width / 2, abs=chart.slot) or last_label[2] == "end"
        )
    assert len(summary.narrow_chart.x_labels) <= 4 < len(summary.chart.x_labels) or buckets <= 7


def test_the_hour_labels_of_the_24_hour_chart_are_in_the_users_time_zone(alice_client, alice, now):
    UserSettings.objects.create(user=alice, time_zone="Asia/Kolkata")  # UTC+05:30
    alice_client.force_login(alice)  # the zone is read at sign-in

    summary = alice_client.get(URL, {"period": "24h"}).context["summary"]

    last_hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    assert summary.chart.x_labels[-1][1] == last_hour.astimezone(ZoneInfo("Asia/Kolkata")).strftime("%H:%M")
    assert summary.chart.x_labels[-1][1].endswith(":30")
