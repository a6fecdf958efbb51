"""/health/reconcile/<run>/apply/: a run applied once, and what the order page, an event's page, the events
list and the what-if say of what it put right."""

import pytest

from attribution.models import Commission, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests.health.pages.reconcile.conftest import run_page, text_of

pytestmark = pytest.mark.django_db


class TestApply:
    def test_alice_applies_once_and_a_second_apply_says_nothing_changed(self, alice_client, alice, uploaded):
        response = alice_client.post(f"{run_page(uploaded)}apply/")

        assert response.status_code == 302
        run = Reconciliation.objects.get()
        assert run.applied_by == alice and run.changes == {
            "created": 1,
            "updated": 1,
            "cancelled": 1,
            "kept": 0,
        }
        assert Order.objects.filter(order_id="A-4").exists()
        assert Commission.objects.get(order__order_id="A-3").state == "cancelled"
        assert OutcomeEvent.objects.filter(endpoint="reconciliation").count() == 3
        page = text_of(alice_client.get(response["Location"]))
        assert "applied: 1 order(s) created, 1 amount(s) updated, 1 commission(s) cancelled" in page
        assert "Applied on" in page and "by alice" in page and "Apply 3 changes" not in page
        assert "Order created" in page and "Amount updated" in page and "Commission cancelled" in page

        again = alice_client.post(f"{run_page(uploaded)}apply/", follow=True)

        assert "was already applied" in text_of(again) and "nothing changed" in text_of(again)
        assert OutcomeEvent.objects.filter(endpoint="reconciliation").count() == 3

    def test_apply_needs_a_post_with_the_csrf_token(self, alice, uploaded):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(alice)

        assert client.get(f"{run_page(uploaded)}apply/").status_code == 405
        assert client.post(f"{run_page(uploaded)}apply/").status_code == 403
        assert Reconciliation.objects.get().applied_at is None

    def test_an_anonymous_visitor_cannot_apply(self, client, uploaded):
        client.logout()
        response = client.post(f"{run_page(uploaded)}apply/")

        assert response.status_code == 302 and Reconciliation.objects.get().applied_at is None


class TestOrderAndEventPages:
    def test_the_order_page_shows_the_reconciliation_and_its_change(self, alice_client, uploaded):
        alice_client.post(f"{run_page(uploaded)}apply/")

        page = text_of(alice_client.get("/health/orders/A-4"))

        assert "In your order book" in page and f"Reconciliation {uploaded.pk} , line 5" in page
        assert "Missing here" in page and "Order created" in page
        assert "Reconciliation tracked Put right from your order book" in page

    def test_a_book_order_never_received_has_an_order_page(self, alice_client, uploaded):
        page = text_of(alice_client.get("/health/orders/A-4"))

        assert "no order confirmation with it arrived. Your order book has it" in page

    def test_the_event_of_a_change_links_to_its_run_and_line(self, alice_client, uploaded):
        alice_client.post(f"{run_page(uploaded)}apply/")
        event = OutcomeEvent.objects.get(order_id="A-3")

        response = alice_client.get(f"/health/events/{event.pk}/")

        assert f'href="/health/reconcile/{uploaded.pk}/?brand=' in response.content.decode()
        assert f"From Reconciliation {uploaded.pk} , line 4 of your order book" in text_of(response)

    def test_the_events_list_filters_the_reconciliation_endpoint(self, alice_client, uploaded):
        alice_client.post(f"{run_page(uploaded)}apply/")

        page = text_of(alice_client.get("/health/events/", {"endpoint": "reconciliation"}))

        assert page.count("Put right from your order book") == 3


def test_what_if_says_an_order_from_the_book_was_not_an_order_confirmation(
    client, staff, alice_client, uploaded
):
    alice_client.post(f"{run_page(uploaded)}apply/")
    client.force_login(staff)

    page = text_of(client.get("/health/orders/A-4", {"brand": uploaded.brand_id}))

    assert "A reconciliation recorded this order from the brand's order book" in page
