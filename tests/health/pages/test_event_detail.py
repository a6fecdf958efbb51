"""/health/events/<id>/: one event with its redacted request, the answer, warnings and the fix."""

import json
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from attribution.outcomes import OUTCOMES, Outcome
from tests.attribution.keyed import commission_for

pytestmark = pytest.mark.django_db


def url(event):
    return reverse("health:event", args=[event.pk])


@pytest.fixture
def rejected(brand, make_event):
    return make_event(
        brand,
        Outcome.INVALID_ORDER_AMOUNT,
        order_id="A-77",
        request_body='{"orderId": "A-77", "orderAmount": "$59.90", "customer_email": "sha256:abc123"}',
        response_body={
            "success": False,
            "outcome": "invalid_order_amount",
            "error": "orderAmount is not a number.",
        },
        warnings=["returnWindowClosesAt could not be read; stored empty."],
    )


def test_anonymous_is_sent_to_sign_in(client, rejected):
    response = client.get(url(rejected))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_shows_the_request_the_answer_the_warnings_and_the_fix(alice_client, rejected):
    response = alice_client.get(url(rejected))

    assert response.status_code == 200
    html = response.content.decode()
    pretty_request = json.dumps(json.loads(rejected.request_body), indent=2).replace('"', "&quot;")
    assert pretty_request in html
    assert "&quot;error&quot;: &quot;orderAmount is not a number.&quot;" in html
    assert "returnWindowClosesAt could not be read; stored empty." in html
    assert OUTCOMES[Outcome.INVALID_ORDER_AMOUNT].fix in html
    assert '<code class="code large">invalid_order_amount</code>' in html
    assert "HTTP 400" in html


def test_a_service_side_outcome_says_there_is_nothing_to_fix(alice_client, brand, make_event):
    event = make_event(brand, Outcome.HANDLER_ERROR)

    html = alice_client.get(url(event)).content.decode()

    assert "Fix:" not in html
    assert OUTCOMES[Outcome.HANDLER_ERROR].fix in html


def test_another_brands_event_is_404(alice_client, other_brand, make_event):
    theirs = make_event(other_brand, order_id="GLOBEX-1")

    response = alice_client.get(url(theirs))

    assert response.status_code == 404
    assert b"GLOBEX-1" not in response.content


def test_an_unknown_event_is_404(alice_client, rejected):
    assert alice_client.get(reverse("health:event", args=[rejected.pk + 1000])).status_code == 404


def test_staff_see_any_brands_event(client, staff, other_brand, make_event):
    theirs = make_event(other_brand, order_id="GLOBEX-1")
    client.force_login(staff)

    response = client.get(url(theirs))

    assert response.status_code == 200
    assert response.context["brand"] == other_brand


def test_an_event_without_a_brand_is_not_on_any_brands_page(client, staff, make_event):
    orphan = make_event(None, Outcome.UNRESOLVED_DOMAIN)
    client.force_login(staff)

    assert client.get(url(orphan)).status_code == 404


def test_hostile_values_are_shown_escaped(alice_client, brand, make_event):
    event = make_event(
        brand,
        Outcome.MALFORMED_CLICK_ID,
        order_id="<script>alert(1)</script>",
        request_body=json.dumps(
            {
                "orderId": "<script>alert(1)</script>",
                "page_url": "https://shop.acme.example/?q=<img src=x onerror=alert(2)>",
                "code": "<b>SAVE10</b>",
            }
        ),
    )

    html = alice_client.get(url(event)).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "<img src=x" not in html
    assert "<b>SAVE10</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "&lt;b&gt;SAVE10&lt;/b&gt;" in html


def test_the_number_of_queries_does_not_grow_with_events(alice_client, brand, make_event, rejected):
    def measure():
        with CaptureQueriesContext(connection) as queries:
            assert alice_client.get(url(rejected)).status_code == 200
        return len(queries)

    few = measure()
    for i in range(50):
        make_event(brand, order_id=f"A-{i}")
    assert measure() == few


def test_an_event_about_a_commission_shows_its_state_and_every_move(alice_client, brand, make_event):
    commission = commission_for(brand, order_id="A-88")
    cancelled_at = datetime(2026, 5, 2, 8, 30, tzinfo=UTC)
    commission.move_to("cancelled", at=cancelled_at, cause="cancel", request_id="req-cancel-88")
    event = make_event(brand, Outcome.TRACKED, endpoint="cancel", order_id="A-88")

    html = alice_client.get(url(event)).content.decode()

    assert "Commission of order A-88" in html
    assert "Cancelled" in html
    assert "2026-05-02 08:30:00" in html
    assert "Pending → Cancelled" in html
    assert "Cancel request" in html
    assert "<code>req-cancel-88</code>" in html


def test_an_event_of_an_order_without_commission_shows_no_commission(alice_client, rejected):
    assert "Commission of order" not in alice_client.get(url(rejected)).content.decode()


def test_a_replayed_event_shows_what_was_answered_and_how_it_was_resolved(alice_client, brand, make_event):
    from health.log.models import OutcomeEvent

    event = make_event(brand, Outcome.TRACKED, order_id="A-99")
    OutcomeEvent.objects.filter(pk=event.pk).update(answered_outcome="insert_failed")

    html = alice_client.get(url(event)).content.decode()

    assert "Resolved:" in html
    assert '<code class="code">insert_failed</code>' in html
    assert '<code class="code large">tracked</code>' in html
