"""/health/reconcile/: a brand user uploads her order book; what the page refuses and says, who may
upload (alice for Acme; bob gets a 404, an anonymous visitor is sent to sign in, staff pick any brand)."""

from decimal import Decimal
from html import unescape

import pytest

from attribution.models import BookRow, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests.health.pages.reconcile.conftest import PAGE, book_file, run_page, text_of

pytestmark = pytest.mark.django_db


class TestUpload:
    def test_alice_uploads_and_lands_on_the_run_with_nothing_changed(self, alice_client, alice, acme):
        response = alice_client.post(PAGE, {"file": book_file(), "order_id_column": "", "amount_column": ""})

        run = Reconciliation.objects.get()
        assert response.status_code == 302
        assert response["Location"] == f"{run_page(run)}?brand={acme.pk}"
        assert (run.brand, run.uploaded_by, run.filename, run.format) == (acme, alice, "book.csv", "generic")
        assert run.applied_at is None
        assert Order.objects.count() == 3 and not OutcomeEvent.objects.exists()
        page = text_of(alice_client.get(response["Location"]))
        assert "Reconciliation " + str(run.pk) + ": 5 rows read. Nothing was changed yet." in page

    def test_the_page_offers_the_upload_with_the_shopify_options_and_lists_the_runs(
        self, alice_client, uploaded
    ):
        page = text_of(alice_client.get(PAGE))

        assert "Upload your order book" in page and "Shopify: order id" in page and "Shopify: amount" in page
        assert "book.csv" in page and "Generic CSV" in page
        assert "2026-11-20 – 2026-11-21" in page
        assert "12.00 USD" in page  # at risk

    def test_the_shopify_options_are_used(self, alice_client, acme):
        text = "Name,Financial Status,Currency,Subtotal,Total,Id\n#1,paid,USD,10.00,12.00,501\n"

        alice_client.post(PAGE, {"file": book_file(text), "order_id_column": "id", "amount_column": "total"})

        run = Reconciliation.objects.get()
        assert (run.format, run.order_id_column, run.amount_column) == ("shopify", "Id", "Total")
        assert BookRow.objects.get().amount == Decimal("12.00")

    @pytest.mark.parametrize(
        ("text", "status", "said"),
        [
            ("", 400, "The file is empty."),
            ("id,total,currency\n1,10,USD\n", 400, "The header has no order_id and no amount column."),
            ("order_id,currency\n1,USD\n", 400, "The header has no amount column."),
        ],
    )
    def test_a_file_that_cannot_be_a_book_says_why_and_stores_nothing(
        self, alice_client, acme, text, status, said
    ):
        response = alice_client.post(PAGE, {"file": book_file(text)})

        assert response.status_code == status
        assert said in unescape(response.content.decode())
        assert not Reconciliation.objects.exists()

    def test_an_empty_upload_field_is_400(self, alice_client, acme):
        response = alice_client.post(PAGE, {})

        assert response.status_code == 400 and "Choose a CSV file" in response.content.decode()

    def test_a_file_over_the_limits_is_413_naming_the_limit(self, alice_client, acme, monkeypatch):
        monkeypatch.setattr("attribution.reconciliation.books.reader.MAX_ROWS", 2)

        response = alice_client.post(PAGE, {"file": book_file()})

        assert response.status_code == 413
        assert "The file has more than 2 rows." in unescape(response.content.decode())
        assert not Reconciliation.objects.exists()

    def test_a_file_over_the_size_limit_is_413(self, alice_client, acme, monkeypatch):
        monkeypatch.setattr("health.pages.reconcile.views.MAX_BYTES", 10)

        response = alice_client.post(PAGE, {"file": book_file()})

        assert response.status_code == 413
        assert "larger than" in unescape(response.content.decode())
        assert not Reconciliation.objects.exists()

    def test_the_upload_needs_the_csrf_token(self, alice, acme):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(alice)

        assert client.post(PAGE, {"file": book_file()}).status_code == 403
        assert not Reconciliation.objects.exists()

    def test_an_anonymous_visitor_is_sent_to_sign_in(self, client, acme):
        response = client.post(PAGE, {"file": book_file()})

        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert not Reconciliation.objects.exists()

    def test_bob_cannot_upload_to_acme(self, client, bob, acme):
        client.force_login(bob)

        assert client.post(f"{PAGE}?brand={acme.pk}", {"file": book_file()}).status_code == 404
        assert not Reconciliation.objects.exists()
