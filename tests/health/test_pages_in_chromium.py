"""The pages as a person sees them, in a real headless Chromium against the live server."""

import pytest
from django.urls import reverse

from health.models import OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

BODY = (
    '{"orderId": 12.5, "orderAmount": 0.0000001, "currency": "USD", "total": 100.00, '
    '"page_url": "https://shop.acme.example/t", "customer_email": "ana@example.com"}'
)


@pytest.fixture
def acme():
    brand = factories.BrandFactory(name="Acme")
    factories.PropertyFactory(brand=brand, host="shop.acme.example")
    return brand


@pytest.fixture
def alice(acme):
    return factories.MembershipFactory(brand=acme, user__username="alice").user


def test_the_event_page_shows_the_body_with_the_json_types_it_was_sent_with(
    api, acme, alice, signed_in, live_server
):
    api.post("/api/order_confirmation", BODY)
    event = OutcomeEvent.objects.get()
    assert event.outcome == "invalid_order_id"  # 12.5 is a number with a fraction
    page = signed_in(alice)

    page.goto(live_server.url + reverse("health:event", args=[event.pk]))
    shown = page.evaluate("document.querySelector('pre.json').innerText")
    page.screenshot("/tmp/i19/event-body.png")

    assert '"orderId": 12.5,' in shown
    assert '"orderAmount": 0.0000001,' in shown
    assert '"total": 100.00,' in shown
    assert "ana@example.com" not in shown and '"customer_email": "sha256:' in shown
    assert "a number with a fraction" in page.evaluate("document.body.innerText")
