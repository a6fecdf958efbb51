"""/health/setup/: a test order through the real service and outcome log, whose form starts from the
brand's primary property and keeps what was sent."""

import json
import re

from django.test import Client

from attribution.models import Commission, Order
from health.log.models import OutcomeEvent
from tests import factories
from tests.health.pages.setup.conftest import SETUP, _page, _send


def test_a_test_order_goes_through_the_service_and_the_outcome_log(client, alice, brand):
    client.force_login(alice)

    response = _send(client, brand)

    event = OutcomeEvent.objects.get()
    assert response.status_code == 302
    assert response["Location"].startswith(f"{SETUP}?brand={brand.pk}&sent={event.pk}&")
    assert (event.brand, event.endpoint, event.outcome, event.http_status, event.is_test) == (
        brand,
        "order_confirmation",
        "no_attribution",
        200,
        True,
    )
    assert json.loads(event.request_body)["test"] is True
    assert json.loads(event.request_body)["page_url"] == "https://shop.acme.example/setup-test"
    assert event.response_body["outcome"] == "no_attribution"
    order = Order.objects.get()
    assert (order.brand, order.order_id, order.is_test) == (brand, event.order_id, True)
    assert re.fullmatch(r"setup-test-\d{8}-\d{6}-[0-9a-f]{6}", order.order_id)

    shown = _page(client.get(response["Location"]))
    assert f"Test order {order.order_id}:" in shown
    assert "no_attribution" in shown
    assert "Order recorded; it matched no click, discount code or known shopper." in shown


def test_a_test_order_with_a_registered_code_is_tracked_as_test(client, alice, brand, creator):
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    client.force_login(alice)

    response = _send(client, brand, code="ana10", order_amount="59.90")

    commission = Commission.objects.get()
    assert (commission.is_test, commission.creator, str(commission.amount)) == (True, creator, "5.990000")
    assert OutcomeEvent.objects.get().outcome == "tracked"
    assert "tracked" in _page(client.get(response["Location"]))


def test_a_bad_currency_shows_the_services_answer(client, alice, brand):
    client.force_login(alice)

    response = _send(client, brand, currency="dollars")

    event = OutcomeEvent.objects.get()
    assert (event.outcome, event.http_status, event.brand, event.is_test) == (
        "invalid_params",
        400,
        brand,
        True,
    )
    assert not Order.objects.exists()
    shown = _page(client.get(response["Location"]))
    assert "invalid_params" in shown and "currency" in shown


def test_a_host_of_another_brand_is_refused_before_anything_is_sent(client, alice, brand, other_prop):
    client.force_login(alice)

    response = _send(client, brand, host="globex.example")

    assert response.status_code == 200
    assert "Select a valid choice" in _page(response)
    assert not OutcomeEvent.objects.exists()


def test_another_brands_user_cannot_send_a_test_order_for_this_brand(client, bob, brand):
    client.force_login(bob)

    assert _send(client, brand).status_code == 404
    assert not OutcomeEvent.objects.exists()


def test_another_brands_test_result_is_not_shown(client, alice, bob, brand, other_brand):
    client.force_login(bob)
    _send(client, other_brand, host="globex.example")
    bobs_event = OutcomeEvent.objects.get()
    client.force_login(alice)

    page = _page(client.get(f"{SETUP}?brand={brand.pk}&sent={bobs_event.pk}"))

    assert bobs_event.order_id not in page


def test_the_test_order_needs_the_csrf_token(alice, brand):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    assert _send(client, brand).status_code == 403
    assert not OutcomeEvent.objects.exists()


def _initial(response) -> dict:
    form = response.context["form"]
    return {name: form[name].value() for name in ("host", "order_amount", "currency", "code")}


def test_the_form_starts_from_the_brands_primary_property(client, alice, brand):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")  # first alphabetically
    factories.PropertyFactory(brand=brand, host="eu.acme.example", is_primary=True)
    client.force_login(alice)

    assert _initial(client.get(SETUP))["host"] == "eu.acme.example"


def test_without_a_primary_property_the_form_starts_from_the_first_registered(client, alice, brand, prop):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")  # registered later
    client.force_login(alice)

    assert _initial(client.get(SETUP))["host"] == "shop.acme.example"


def test_after_a_test_order_the_form_keeps_what_was_sent(client, alice, brand, creator):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    client.force_login(alice)

    response = _send(
        client, brand, host="shop.acme.example", order_amount="42.50", currency="EUR", code="ANA10"
    )
    shown = client.get(response["Location"])

    assert _initial(shown) == {
        "host": "shop.acme.example",
        "order_amount": "42.50",
        "currency": "EUR",
        "code": "ANA10",
    }
    assert response["Location"].endswith("#test-result")
    assert 'id="test-result"' in _page(shown)


def test_a_sent_value_edited_away_in_the_address_bar_falls_back_to_the_default(client, alice, brand, prop):
    client.force_login(alice)

    shown = client.get(SETUP, {"brand": brand.pk, "sent": "1", "host": "evil.example", "order_amount": "9"})

    assert _initial(shown)["host"] == "shop.acme.example"
    assert _initial(shown)["order_amount"] == "9"
