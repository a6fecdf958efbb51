"""/health/: the tracking health overview of one brand."""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.staticfiles import finders
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from attribution.outcomes import OUTCOMES, Outcome
from brands.models import UserSettings
from health.log.models import DailyOutcomeCount, OutcomeEvent
from health.log.rollup import roll_up
from health.templatetags.health_tags import ago
from tests import factories
from tests.health.helpers import raw_counts, shown_counts

pytestmark = pytest.mark.django_db

URL = reverse("health:overview")


@pytest.fixture
def old(now):
    return now - timedelta(hours=1)


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={URL}"


def test_a_user_without_a_brand_is_told_to_ask_for_access(client, db):
    client.force_login(factories.UserFactory(username="nobody"))

    response = client.get(URL)

    assert response.status_code == 403
    assert b"No brand linked to your account" in response.content


def test_it_shows_the_users_brand(alice_client, brand):
    response = alice_client.get(URL)

    assert response.status_code == 200
    assert response.context["brand"] == brand
    assert response.context["brand_choices"] == []  # one brand: nothing to pick
    assert b'name="brand"' not in response.content


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


def test_a_brand_user_never_sees_another_brands_counts(alice_client, brand, other_brand, make_event):
    make_event(brand, Outcome.TRACKED)
    make_event(other_brand, Outcome.EXPIRED_CLICK, order_id="GLOBEX-1")
    make_event(other_brand, Outcome.EXPIRED_CLICK, endpoint="update")

    response = alice_client.get(URL)

    summary = response.context["summary"]
    assert summary.total == 1
    assert b"expired_click" not in response.content
    assert b"Globex" not in response.content


def test_a_brand_user_asking_for_another_brand_gets_404(alice_client, other_brand):
    assert alice_client.get(URL, {"brand": other_brand.pk}).status_code == 404
    assert alice_client.get(URL, {"brand": "not-a-number"}).status_code == 404


def test_staff_can_pick_any_brand(client, staff, brand, other_brand, make_event):
    make_event(other_brand, Outcome.EXPIRED_CLICK)
    client.force_login(staff)

    response = client.get(URL, {"brand": other_brand.pk})

    assert response.status_code == 200
    assert response.context["brand"] == other_brand
    assert response.context["summary"].total == 1
    assert set(response.context["brand_choices"]) == {brand, other_brand}
    # The pick is remembered for the next page without ?brand=.
    assert client.get(URL).context["brand"] == other_brand


def test_a_user_of_several_brands_picks_between_them_only(client, brand, other_brand):
    third = factories.BrandFactory(name="Initech")
    user = factories.MembershipFactory(brand=brand).user
    factories.MembershipFactory(brand=other_brand, user=user)
    client.force_login(user)

    response = client.get(URL, {"brand": other_brand.pk})

    assert response.context["brand"] == other_brand
    assert set(response.context["brand_choices"]) == {brand, other_brand}
    assert client.get(URL, {"brand": third.pk}).status_code == 404


def test_status_shows_the_latest_event_of_each_kind(alice_client, brand, make_event):
    make_event(brand, Outcome.TRACKED, ago=timedelta(hours=30), order_id="A-1")
    last_order = make_event(brand, Outcome.NO_ATTRIBUTION, ago=timedelta(hours=2), order_id="A-2")
    last_cancel = make_event(brand, Outcome.TRACKED, endpoint="cancel", ago=timedelta(hours=5))
    make_event(brand, Outcome.TRACKED, is_test=True, ago=timedelta(minutes=1))  # test: not "last order"

    status = alice_client.get(URL).context["status"]

    assert status.last_order["id"] == last_order.pk
    assert status.last_tracked["order_id"] == "A-1"
    assert status.last_cancel["id"] == last_cancel.pk
    assert status.last_update is None
    assert status.last_test is not None


def test_it_warns_when_a_usual_sender_has_sent_no_orders_for_24_hours(
    alice_client, brand, make_event, now, old
):
    for day in range(2, 7):
        make_event(brand, ago=timedelta(days=day), recorded_at=old)
    roll_up(now=now)

    response = alice_client.get(URL)

    assert response.context["status"].silent
    assert b"No order confirmations for more than 24 hours." in response.content


def test_no_warning_for_a_brand_that_rarely_sends(alice_client, brand, make_event, now, old):
    make_event(brand, ago=timedelta(days=3), recorded_at=old)
    make_event(brand, ago=timedelta(days=5), recorded_at=old)

    response = alice_client.get(URL)

    assert not response.context["status"].silent
    assert b"No order confirmations for more than 24 hours." not in response.content


def test_no_warning_once_orders_arrive_again(alice_client, brand, make_event, now, old):
    for day in range(2, 7):
        make_event(brand, ago=timedelta(days=day), recorded_at=old)
    make_event(brand, ago=timedelta(hours=3))

    assert not alice_client.get(URL).context["status"].silent


def test_viewing_the_overview_rolls_up_a_bounded_batch(alice_client, brand, make_event, old):
    make_event(brand, recorded_at=old)
    make_event(brand)  # inside the safety lag: stays in the tail

    alice_client.get(URL)

    assert sum(DailyOutcomeCount.objects.values_list("count", flat=True)) == 1


def test_the_number_of_queries_does_not_grow_with_events(alice_client, brand, make_event, old):
    def setup_and_measure(n):
        OutcomeEvent.objects.all().delete()
        DailyOutcomeCount.objects.all().delete()
        for i in range(n):
            outcome = [Outcome.TRACKED, Outcome.NO_ATTRIBUTION, Outcome.DUPLICATE_ORDER][i % 3]
            make_event(brand, outcome, ago=timedelta(days=i % 5, hours=1), recorded_at=old)
            make_event(brand, outcome, endpoint="cancel", ago=timedelta(hours=i % 7))
        with CaptureQueriesContext(connection) as queries:
            response = alice_client.get(URL)
        assert response.status_code == 200
        return len(queries)

    alice_client.get(URL)  # the session and the watermark row exist from here on
    assert setup_and_measure(5) == setup_and_measure(50)


def test_a_signed_in_user_who_opens_the_sign_in_page_goes_to_the_overview(alice_client):
    response = alice_client.get("/accounts/login/")

    assert response.status_code == 302
    assert response["Location"] == URL


@pytest.mark.parametrize(
    "seconds, shown", [(0, "just now"), (59, "just now"), (60, "1\xa0minute ago"), (7200, "2\xa0hours ago")]
)
def test_how_long_ago_reads(now, seconds, shown):
    assert ago(now - timedelta(seconds=seconds), now) == shown


def test_pages_carry_a_sign_out_form_that_posts_with_csrf(client, alice):
    client = type(client)(enforce_csrf_checks=True)
    client.force_login(alice)

    html = client.get(URL).content.decode()

    form = html[html.index(f'action="{reverse("logout")}"') - 40 :]
    form = form[: form.index("</form>")]
    assert 'method="post"' in form and 'name="csrfmiddlewaretoken"' in form
    assert client.post(reverse("logout")).status_code == 403  # no token: refused
    token = client.cookies["csrftoken"].value
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert client.get(URL).status_code == 302  # signed out


def test_pages_load_no_script_and_nothing_from_elsewhere(alice_client, brand, make_event):
    make_event(brand)

    html = alice_client.get(URL).content.decode()

    assert "<script" not in html
    assert 'href="/static/health/health.css"' in html
    assert finders.find("health/health.css")
    for external in ('src="http', 'href="http', 'src="//', 'href="//'):
        assert external not in html


def test_the_overview_shows_how_many_of_the_brands_events_wait_in_the_spool(client, settings, tmp_path):
    from django.utils import timezone

    from attribution.durability import spool
    from tests.factories import BrandFactory, MembershipFactory

    alice_brand, bob_brand = BrandFactory(), BrandFactory()
    for brand_id in (alice_brand.id, alice_brand.id, bob_brand.id):
        spool.keep_event(
            endpoint="order_confirmation",
            received_at=timezone.now(),
            request_id="r",
            body=b"{}",
            brand_id=brand_id,
        )
    spool.save_backlog(spool.pending())  # as the replay run leaves it; the page never reads the directory
    client.force_login(MembershipFactory(brand=alice_brand).user)

    page = client.get("/health/").content.decode()

    assert "2 events waiting to be processed" in page
    assert "All brands" not in page


# --- what the chart and the cards count (one definition each) ----------------------------------------------


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


# --- storefront platforms: deliveries and the capture rate by path ------------------------------------


def _both_paths(api, client, prop, creator):
    """Three orders of Acme's Shopify shop: one seen by the platform and the confirmation, one by the platform
    only, one by the confirmation only; and one delivery refused for its signature."""
    from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify
    from tests.attribution.platforms.payloads import body_of, shopify_order

    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)

    def deliver(order_id, secret=SHOPIFY_SECRET):
        raw = body_of(shopify_order(order_id=order_id))
        return post_shopify(client, raw, webhook_id=f"w-{order_id}-{secret[:4]}", secret=secret)

    def confirm(order_id):
        body = {
            "orderId": order_id,
            "orderAmount": 10,
            "currency": "USD",
            "page_url": f"https://{prop.host}/ty",
        }
        return api.post("/api/order_confirmation", body)

    confirm(1)
    deliver(1)
    deliver(2)
    confirm(3)
    deliver(4, secret="forged")


def test_a_brand_with_a_shop_sees_its_deliveries_and_the_capture_rate_by_path(
    api, client, alice, prop, creator
):
    _both_paths(api, client, prop, creator)
    client.force_login(alice)

    response = client.get(URL)

    [figures] = response.context["platforms"]
    assert (figures.deliveries, figures.signature_failures) == (2, 1)
    assert (figures.platform_only, figures.confirmation_only, figures.both) == (1, 1, 1)
    assert round(figures.platform_share, 1) == 66.7
    text = response.content.decode()
    assert "acme-demo.myshopify.com" in text
    assert "the platform's webhook brought 66.7% and the order confirmation 66.7%" in text
    # The other ways in get their column in the outcome table once they sent something.
    assert '<th scope="col" class="num">Shopify webhook</th>' in text


def test_a_brand_without_a_shop_sees_no_platform_section(alice_client):
    response = alice_client.get(URL)

    assert response.context["platforms"] == []
    assert "Storefront platform" not in response.content.decode()


def test_bob_does_not_see_alice_s_shop(api, client, alice, bob, prop, creator):
    _both_paths(api, client, prop, creator)
    client.force_login(bob)

    response = client.get(URL)

    assert response.context["platforms"] == []
    assert "acme-demo.myshopify.com" not in response.content.decode()
