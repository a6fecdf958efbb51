"""/health/reconcile/<run>/: what a run found (counts, commission at risk and difference, capture rate),
its rows by category a page at a time, and the differences as CSV."""

import csv
import io
from decimal import Decimal

import pytest

from attribution.models import Reconciliation
from tests import factories
from tests.health.pages.reconcile.conftest import PAGE, book_file, run_page, text_of

pytestmark = pytest.mark.django_db


class TestResults:
    def test_the_run_shows_its_counts_costs_and_capture_rate(self, alice_client, uploaded):
        page = text_of(alice_client.get(run_page(uploaded)))

        assert "Captured here 66.7 % 2 of the book's 3 completed orders arrived" in page
        assert "Commission at risk 12.00 USD What the 1 missing order would earn" in page
        assert (
            "Commission difference -2.00 USD What the book's amounts would change on the 1 drifted order"
            in page
        )
        assert "Not in the book 0" in page
        for label, n in (
            ("Matched", 1),
            ("Amount differs", 1),
            ("Cancelled in the book", 1),
            ("Missing here", 1),
            ("Unreadable row", 1),
        ):
            assert f"{label} {n}" in page
        assert "Apply 3 changes" in page

    def test_rows_show_their_details_and_filter_by_category(self, alice_client, uploaded):
        page = text_of(alice_client.get(run_page(uploaded), {"status": "missing"}))

        assert "A-4" in page and "Never received" in page and "12.00 USD" in page
        assert "A-2" not in page

    def test_rows_are_paged(self, alice_client, acme):
        text = "order_id,amount,currency\n" + "".join(f"P-{n:04},10,USD\n" for n in range(250))
        alice_client.post(PAGE, {"file": book_file(text)})
        run = Reconciliation.objects.get()

        third = text_of(alice_client.get(run_page(run), {"page": 3}))

        assert "Page 3 of 3 · 250 rows" in third and "P-0200" in third and "P-0199" not in third
        assert "Page 1 of 3" in text_of(alice_client.get(run_page(run), {"page": "x"}))

    def test_the_page_reads_with_a_fixed_number_of_queries(
        self, alice_client, acme, django_assert_max_num_queries
    ):
        text = "order_id,amount,currency\n" + "".join(f"P-{n},10,USD\n" for n in range(300))
        alice_client.post(PAGE, {"file": book_file(text)})
        run = Reconciliation.objects.get()

        with django_assert_max_num_queries(12):
            assert alice_client.get(run_page(run)).status_code == 200

    def test_bob_gets_a_404_for_acmes_run_on_every_path(self, client, bob, uploaded):
        client.force_login(bob)

        for path in (run_page(uploaded), f"{run_page(uploaded)}differences.csv"):
            assert client.get(path).status_code == 404
        assert client.post(f"{run_page(uploaded)}apply/").status_code == 404
        assert Reconciliation.objects.get().applied_at is None

    def test_an_anonymous_visitor_is_sent_to_sign_in(self, client, uploaded):
        client.logout()
        for path in (run_page(uploaded), f"{run_page(uploaded)}differences.csv"):
            response = client.get(path)
            assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")

    def test_staff_read_any_brands_run(self, client, staff, uploaded):
        client.force_login(staff)

        assert "Reconciliation " + str(uploaded.pk) in text_of(client.get(run_page(uploaded)))


class TestDifferencesCsv:
    def test_it_lists_every_difference_then_the_orders_the_book_lacks(self, alice_client, acme, uploaded):
        factories.OrderFactory(
            brand=acme,
            order_id="A-9",
            amount=Decimal("30.00"),
            outcome="no_attribution",
            received_at=uploaded.period_start + (uploaded.period_end - uploaded.period_start) / 2,
        )
        Reconciliation.objects.filter(pk=uploaded.pk).update(not_in_book=1)

        response = alice_client.get(f"{run_page(uploaded)}differences.csv")

        assert response.status_code == 200
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert f"-{uploaded.pk}-differences-" in response["Content-Disposition"]
        body = b"".join(response.streaming_content).decode()
        assert body.startswith("\ufeff")
        rows = list(csv.DictReader(io.StringIO(body.lstrip("\ufeff"))))
        assert [(r["line"], r["order_id"], r["status"]) for r in rows] == [
            ("3", "A-2", "amount_mismatch"),
            ("4", "A-3", "cancelled_at_brand"),
            ("5", "A-4", "missing"),
            ("6", "'=A-5", "invalid"),  # a cell a spreadsheet would run is quoted
            ("", "A-9", "not_in_book"),
        ]
        assert (rows[2]["book_amount"], rows[2]["commission"], rows[2]["code"]) == (
            "120.00",
            "12.00",
            "ANA10",
        )
        assert rows[1]["book_status"] == "cancelled"
        assert rows[0]["commission"] == "-2.00"
