"""/health/: the tracking health overview of one brand."""

from datetime import UTC, timedelta

import pytest
from django.urls import reverse

from attribution.outcomes import OUTCOMES, Outcome
from health.log.rollup import roll_up
from tests.health.helpers import raw_counts, shown_counts

pytestmark = pytest.mark.django_db


URL = reverse("health:overview")


@pytest.mark.parametrize("period", ["24h", "7d", "30d"])
def test_counts_match_the_raw_log_rolled_up_or_not(alice_client, brand, make_event, now, old, period):
    make_event(brand, Outcome.TRACKED, ago=timedelta(hours=2), recorded_at=old)
    make_event(brand, Outcome.TRACKED, ago=timedelta(hours=3), recorded_at=old)
    make_event(brand, Outcome.NO_ATTRIBUTION, ago=timedelta(days=2), recorded_at=old)
    make_event(brand, Outcome.TRACKED, endpoint="cancel", ago=timedelta(days=5), recorded_at=old)
    make_event(brand, Outcome.ORDER_NOT_FOUND, endpoint="update", ago=timedelta(days=20), recorded_at=old)
    make_event(brand, Outcome.TRACKED, ago=timedelta(days=40), recorded_at=old)  # outside every preset
    roll_up(now=now)
    # Not rolled up yet: just recorded (inside the safety lag), one of them a late replay.
    make_event(brand, Outcome.DUPLICATE_ORDER, ago=timedelta(minutes=30))
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT, ago=timedelta(days=6))
    make_event(brand, Outcome.TRACKED, ago=timedelta(hours=1), is_test=True)

    response = alice_client.get(URL, {"period": period})

    shown = response.context["period"]
    assert shown.key == period
    expected = raw_counts(brand, start=shown.start, end=shown.end, is_test=False)
    assert shown_counts(response.context["summary"]) == expected
    assert sum(expected.values()) >= 2


def test_a_custom_period_counts_whole_days(alice_client, brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=3), recorded_at=old)
    make_event(brand, ago=timedelta(days=4), recorded_at=old)
    make_event(brand, ago=timedelta(days=9))
    today = now.astimezone(UTC).date()
    first, last = today - timedelta(days=10), today - timedelta(days=3)

    response = alice_client.get(URL, {"period": "custom", "from": first, "to": last})

    period = response.context["period"]
    assert (period.key, period.first_day, period.last_day) == ("custom", first, last)
    summary = response.context["summary"]
    assert shown_counts(summary) == raw_counts(brand, start=period.start, end=period.end, is_test=False)
    assert summary.total == 3
    assert len(summary.chart.bars) == 8


def test_a_custom_period_with_dates_reversed_falls_back_and_says_why(alice_client, now):
    today = now.astimezone(UTC).date()

    response = alice_client.get(URL, {"period": "custom", "from": today, "to": today - timedelta(days=2)})

    assert response.context["period"].key == "7d"
    assert b"The start date must not be after the end date." in response.content


def test_a_custom_period_in_the_year_9999_falls_back_and_says_why(alice_client):
    response = alice_client.get(URL, {"period": "custom", "from": "9999-12-31", "to": "9999-12-31"})

    assert response.status_code == 200
    assert response.context["period"].key == "7d"
    assert b"Pick a date before the year 3000." in response.content


def test_test_events_are_never_in_live_figures(alice_client, brand, make_event, old):
    make_event(brand, Outcome.TRACKED, recorded_at=old)
    make_event(brand, Outcome.TRACKED, is_test=True, recorded_at=old)
    make_event(brand, Outcome.UNREGISTERED_CODE, is_test=True)

    live = alice_client.get(URL).context["summary"]
    test = alice_client.get(URL, {"ns": "test"}).context["summary"]

    assert (live.total, live.orders_tracked, live.other_namespace_total) == (1, 1, 2)
    assert [line.code for line in live.outcome_lines] == ["tracked"]
    assert (test.total, test.orders_tracked, test.other_namespace_total) == (2, 1, 1)
    assert {line.code for line in test.outcome_lines} == {"tracked", "unregistered_code"}


def test_the_tracked_share_counts_only_accepted_order_confirmations(alice_client, brand, make_event):
    for outcome in [
        Outcome.TRACKED,
        Outcome.NO_ATTRIBUTION,
        Outcome.NO_ATTRIBUTION,
        Outcome.UNREGISTERED_CODE,
    ]:
        make_event(brand, outcome)
    make_event(brand, Outcome.DUPLICATE_ORDER)  # rejected: not a new order
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT)  # rejected: unreadable
    make_event(brand, Outcome.INSERT_FAILED)  # counted once replayed, as its real outcome
    make_event(brand, Outcome.TRACKED, endpoint="cancel")  # not an order confirmation

    response = alice_client.get(URL)

    summary = response.context["summary"]
    assert (summary.orders_tracked, summary.orders_accepted, summary.orders_total) == (1, 4, 7)
    assert summary.tracked_share == 25.0
    html = response.content.decode()
    assert "25.0%" in html
    assert "1 of 4 accepted orders attributed (3 rejected not counted)" in html


def test_a_platform_brand_s_orders_count_once_whichever_way_they_came(alice_client, brand, make_event):
    # Each order came by the thank-you page's snippet (handed off) and by the platform's webhook.
    for order_id, outcome in (("1001", Outcome.TRACKED), ("1002", Outcome.NO_ATTRIBUTION)):
        make_event(brand, Outcome.SHOPIFY_HANDOFF, order_id=order_id)
        make_event(brand, outcome, endpoint="shopify", order_id=order_id)
        make_event(brand, Outcome.ALREADY_RECEIVED, endpoint="shopify", order_id=order_id)  # orders/paid
    make_event(brand, Outcome.REDELIVERY, endpoint="shopify", order_id="1001")
    make_event(brand, Outcome.IGNORED, endpoint="shopify", order_id="")  # a topic not acted on
    make_event(brand, Outcome.INVALID_SIGNATURE, endpoint="shopify", order_id="")  # not the shop's
    make_event(brand, Outcome.TRACKED, endpoint="shopify_change", order_id="1001")  # orders/updated followed

    response = alice_client.get(URL)

    summary = response.context["summary"]
    assert (summary.orders_tracked, summary.orders_accepted, summary.orders_total) == (1, 2, 2)
    assert summary.tracked_share == 50.0
    groups = {(line.code, line.group) for line in summary.outcome_lines}
    assert ("tracked", "tracked") in groups and ("tracked", "changed") in groups
    assert "1 of 2 accepted orders attributed" in response.content.decode()
    assert response.context["status"].last_tracked["endpoint"] == "shopify"


def test_outcomes_needing_action_come_first_with_their_fix(alice_client, brand, make_event):
    for _ in range(5):
        make_event(brand, Outcome.NO_ATTRIBUTION)
    make_event(brand, Outcome.TRACKED)
    make_event(brand, Outcome.INVALID_ORDER_AMOUNT)
    make_event(brand, Outcome.HANDLER_ERROR)  # a service-side fault: nothing for the brand to do

    response = alice_client.get(URL)

    summary = response.context["summary"]
    assert [line.code for line in summary.action_lines] == ["invalid_order_amount"]
    assert summary.outcome_lines[0].code == "invalid_order_amount"
    html = response.content.decode()
    fix = OUTCOMES[Outcome.INVALID_ORDER_AMOUNT].fix
    assert fix in html
    assert html.index(fix) < html.index("Events per day")
    assert OUTCOMES[Outcome.HANDLER_ERROR].fix not in html


def test_codes_are_shown_exactly_beside_their_labels(alice_client, brand, make_event):
    make_event(brand, Outcome.UNREGISTERED_CODE)

    html = alice_client.get(URL).content.decode()

    assert '<code class="code">unregistered_code</code>' in html
    assert OUTCOMES[Outcome.UNREGISTERED_CODE].label in html


def test_a_cancel_and_an_update_that_took_effect_have_their_own_lines(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED)
    make_event(brand, Outcome.TRACKED, endpoint="cancel")
    make_event(brand, Outcome.TRACKED, endpoint="update")

    response = alice_client.get(URL)

    lines = {(line.label, line.group): line.by_endpoint for line in response.context["summary"].outcome_lines}
    assert lines == {
        ("Attributed: a commission was created", "tracked"): {"order_confirmation": 1},
        ("Cancelled: the order's commission was cancelled", "changed"): {"cancel": 1},
        ("Updated: the commission follows the new total", "changed"): {"update": 1},
    }
    by_endpoint = {ep.endpoint: ep.took_effect for ep in response.context["summary"].endpoint_lines}
    assert by_endpoint == {"order_confirmation": 1, "cancel": 1, "update": 1}
    assert "commission created or changed" not in response.content.decode()


@pytest.mark.parametrize("rolled_up", [True, False])
def test_it_counts_the_events_that_carry_a_warning_and_links_to_them(
    alice_client, brand, other_brand, make_event, now, old, rolled_up
):
    recorded_at = old if rolled_up else None
    make_event(brand, Outcome.TRACKED, warnings=["returnWindowClosesAt unreadable"], recorded_at=recorded_at)
    make_event(
        brand, Outcome.NO_ATTRIBUTION, warnings=["returnWindowClosesAt unreadable"], recorded_at=recorded_at
    )
    make_event(brand, Outcome.NO_ATTRIBUTION, recorded_at=recorded_at)
    make_event(
        brand, Outcome.TRACKED, warnings=["x"], is_test=True, recorded_at=recorded_at
    )  # other namespace
    make_event(other_brand, Outcome.TRACKED, warnings=["x"], recorded_at=recorded_at)  # other brand
    if rolled_up:
        roll_up(now=now)

    response = alice_client.get(URL)

    assert response.context["summary"].warned == 2
    html = response.content.decode()
    callout = html[html.index('id="warnings-callout"') :]
    callout = callout[: callout.index("</div>")]
    assert "2 events in this period carry a warning." in callout
    assert "warnings=on" in callout and f"brand={brand.pk}" in callout
    assert "Nothing needs your action" not in html
