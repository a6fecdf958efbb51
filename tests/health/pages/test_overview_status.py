"""/health/: the integration's status on the overview (the latest event of each kind, the warning when a
usual sender falls silent, the spool's backlog) and what viewing it costs (a bounded roll-up, a fixed number
of queries)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from attribution.outcomes import Outcome
from health.log.models import DailyOutcomeCount, OutcomeEvent
from health.log.rollup import roll_up
from health.templatetags.health_tags import ago

pytestmark = pytest.mark.django_db


URL = reverse("health:overview")


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


@pytest.mark.parametrize(
    "seconds, shown", [(0, "just now"), (59, "just now"), (60, "1\xa0minute ago"), (7200, "2\xa0hours ago")]
)
def test_how_long_ago_reads(now, seconds, shown):
    assert ago(now - timedelta(seconds=seconds), now) == shown


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
