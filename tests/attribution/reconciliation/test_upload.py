"""POST /api/Affiliates/reconciliations: the book is read, every book order lands in exactly one category,
the summary says what the differences cost, and nothing else changes. A bad upload stores nothing."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from attribution.models import BookRow, Commission, Order, Reconciliation
from attribution.reconciliation import runs
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import URL, book, rows_of, summary_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def book_world(brand, alice, creator):
    """Acme's received orders, one per category the book will find."""
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")  # matched
    commission_for(brand, order_id="A-2", order_amount="100.00")  # the book says 80.00
    commission_for(brand, order_id="A-3", order_amount="50.00")  # the book cancelled it
    # A-4 never arrived; it carries ANA10, so it would earn 10 % of 120.00.
    factories.OrderFactory(brand=brand, order_id="A-9", received_at=datetime(2026, 11, 20, 12, tzinfo=UTC))
    factories.OrderFactory(brand=brand, order_id="A-10", received_at=datetime(2026, 11, 21, 11, tzinfo=UTC))
    return brand


BOOK = book(
    "A-1,100.00,USD,completed,,,2026-11-20T10:00:00Z,",
    "A-2,80.00,USD,completed,,,2026-11-20T11:00:00Z,",
    "A-3,50.00,USD,refunded,,,2026-11-21T09:00:00Z,",
    "A-4,120.00,USD,completed,ANA10,,2026-11-21T10:00:00Z,",
    "A-5,$12.00,USD,completed,,,2026-11-21T10:00:00Z,",
)


def test_each_book_order_is_in_exactly_one_category(book_world, alice, upload, client):
    answer = upload(BOOK, alice)

    assert answer.status_code == 201
    assert answer.json()["success"] is True
    run = answer.json()["reconciliation"]
    assert run["format"] == "generic"
    assert run["row_count"] == 5
    assert run["counts"] == {
        "matched": 1,
        "amount_mismatch": 1,
        "cancelled_at_brand": 1,
        "missing": 1,
        "invalid": 1,
        # A-9, received within the book's period, is not in it; A-10 came after its last order.
        "not_in_book": 1,
    }
    assert (
        sum(
            run["counts"][name]
            for name in ("matched", "amount_mismatch", "cancelled_at_brand", "missing", "invalid")
        )
        == 5
    )
    assert run["period"] == {"first": "2026-11-20T10:00:00Z", "last": "2026-11-21T10:00:00Z"}
    assert run["commission_at_risk"] == [{"currency": "USD", "amount": "12.00"}]
    assert run["commission_difference"] == [{"currency": "USD", "amount": "-2.00"}]
    assert run["applied"] is False and run["applying"] is False
    assert run["changes"] == {"created": 0, "updated": 0, "cancelled": 0, "kept": 0}
    # The book completed; arrived (A-3, which it cancelled, is not counted).
    assert (run["book_orders"], run["received"], run["capture_rate"]) == (3, 2, 0.6667)

    rows = {r["order_id"] or r["line"]: r for r in rows_of(client, alice, run["id"])}
    assert [r["line"] for r in rows.values()] == [2, 3, 4, 5, 6]  # the header is line 1
    assert [r["status"] for r in rows.values()] == [
        "matched",
        "amount_mismatch",
        "cancelled_at_brand",
        "missing",
        "invalid",
    ]
    assert "100.00 USD here, 80.00 USD in the book" in rows["A-2"]["detail"]
    assert "its commission here is pending" in rows["A-3"]["detail"]
    assert "Never received" in rows["A-4"]["detail"] and "12.00 USD" in rows["A-4"]["detail"]
    assert "'$12.00' does not read as a number" in rows["A-5"]["detail"]


def test_the_capture_rate_is_kept_per_day(book_world, alice, upload):
    summary_of(upload(BOOK, alice))

    run = Reconciliation.objects.get()
    assert run.daily_capture == {"2026-11-20": [2, 2], "2026-11-21": [1, 0]}


def test_uploading_changes_nothing_and_records_no_event(book_world, alice, upload):
    before = (Order.objects.count(), list(Commission.objects.values_list("state", "order_amount")))

    upload(BOOK, alice)

    assert (Order.objects.count(), list(Commission.objects.values_list("state", "order_amount"))) == before
    assert not OutcomeEvent.objects.exists()
    run = Reconciliation.objects.get()
    assert (run.brand, run.key_prefix, run.applied_at) == (book_world, alice.key.prefix, None)
    assert BookRow.objects.filter(reconciliation=run).count() == 5


def test_an_order_refused_when_it_arrived_says_why_it_is_missing(brand, alice, upload, client, api):
    api.post(
        "/api/order_confirmation",
        {
            "orderId": "R-1",
            "orderAmount": "$59.90",
            "currency": "USD",
            "page_url": "https://shop.acme.example/thanks",
        },
    )
    run = summary_of(upload(book("R-1,59.90,USD,,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "missing"
    assert "was refused: invalid_order_amount" in row["detail"]


def test_a_missing_order_with_an_unknown_click_says_it_would_be_refused(brand, alice, upload, client):
    run = summary_of(upload(book(f"U-1,10,USD,,,clk_{'0' * 32},,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "missing"
    assert "matches no click" in row["detail"] and "click_not_found" in row["detail"]
    assert run["commission_at_risk"] == []


def test_a_missing_order_is_estimated_at_its_order_time(brand, prop, alice, creator, upload):
    click = factories.ClickFactory(
        property=prop, creator=creator, clicked_at=timezone.now() - timedelta(days=60)
    )
    ordered = (timezone.now() - timedelta(days=55)).strftime("%Y-%m-%dT%H:%M:%SZ")

    run = summary_of(upload(book(f"B-1,200.00,USD,completed,,{click.click_id},{ordered},"), alice))

    # 60 days after the click today, outside the 30-day window; 5 days after it when the order was placed.
    assert run["commission_at_risk"] == [{"currency": "USD", "amount": "20.00"}]


def test_a_brand_whose_storefront_records_orders_gets_no_estimate(brand, alice, upload, client):
    brand.storefront_handles_orders = True
    brand.save()

    run = summary_of(upload(book("H-1,10,USD,,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "missing" and "storefront platform's integration" in row["detail"]


def test_a_cancelled_order_never_received_has_nothing_to_recover(brand, alice, upload, client):
    run = summary_of(upload(book("C-1,10,USD,cancelled,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "matched" and "nothing to recover" in row["detail"]
    assert run["capture_rate"] is None  # no completed order in the book


def test_a_drifted_amount_without_a_live_commission_matches(brand, alice, upload, client):
    factories.OrderFactory(brand=brand, order_id="N-1", amount=Decimal("30.00"), outcome="no_attribution")

    run = summary_of(upload(book("N-1,25.00,USD,,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "matched" and "no live commission depends on it" in row["detail"]


def test_a_locked_commission_the_book_changed_is_a_difference_that_says_it_stays(
    brand, alice, upload, client
):
    commission_for(brand, order_id="L-1", state=Commission.State.LOCKED)

    run = summary_of(upload(book("L-1,100.00,USD,cancelled,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "cancelled_at_brand"
    assert "locked" in row["detail"] and "not moved by a reconciliation" in row["detail"]


def test_another_currency_in_the_book_is_a_difference(brand, alice, upload, client):
    commission_for(brand, order_id="E-1", currency="USD")

    run = summary_of(upload(book("E-1,100.00,EUR,,,,,"), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "amount_mismatch" and "The book says EUR" in row["detail"]


def test_a_repeated_order_id_counts_once(brand, alice, upload, client):
    run = summary_of(
        upload(book("D-1,10,USD,,,,,", "D-2,10,USD,,,,,", "D-1,10,USD,,,,,", "D-1,11,USD,,,,,"), alice)
    )

    assert run["counts"]["missing"] == 2 and run["counts"]["invalid"] == 2
    assert [r["detail"] for r in rows_of(client, alice, run["id"], status="invalid")] == [
        "The order id repeats line 2; only that row counts.",
        "The order id repeats line 2; only that row counts.",
    ]


def test_test_orders_are_compared_in_the_test_namespace(brand, alice, upload):
    commission_for(brand, order_id="T-1", is_test=True)

    run = summary_of(upload(book("T-1,100.00,USD,,,,,true", "T-1,100.00,USD,,,,,false"), alice))

    assert (run["counts"]["matched"], run["counts"]["missing"]) == (1, 1)


def test_a_multipart_upload_with_the_file_field(brand, alice, client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile(
        "book.csv", b"order_id,amount,currency\nM-1,10,USD\n", content_type="text/csv"
    )
    run = summary_of(client.post(URL, {"file": upload}, **alice.headers))

    assert (run["filename"], run["counts"]["missing"]) == ("book.csv", 1)


def test_the_queries_of_an_upload_do_not_grow_with_its_rows(brand, alice, creator, upload, monkeypatch):
    """Streamed and batched: each batch of 1,000 book orders costs the same few reads (received orders, the
    outcome log's last word, clicks and codes) and one write of its rows (a COPY on PostgreSQL, which
    Django's query log does not see, so its calls are counted), whatever its mix of categories; then a
    fixed few statements sum the run up. No query per row."""
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    writes = []
    write_rows = runs.write_rows
    monkeypatch.setattr(runs, "write_rows", lambda rows: writes.append(len(rows)) or write_rows(rows))

    def lines(n, prefix):
        for i in range(n):
            if i % 3 == 0:
                commission_for(brand, order_id=f"{prefix}-{i}", order_amount="100.00")
            code = "ANA10" if i % 5 == 0 else ""
            yield f"{prefix}-{i},{'100.00' if i % 2 else '90.00'},USD,,{code},,2026-11-20T10:00:00Z,"

    def queries_of(text):
        writes.clear()
        with CaptureQueriesContext(connection) as captured:
            summary_of(upload(text, alice))
        reads = [
            q
            for q in captured.captured_queries
            if not q["sql"].startswith('INSERT INTO "attribution_bookrow"')
        ]
        return len(reads), list(writes)

    small_queries, small_writes = queries_of(book(*lines(30, "S")))
    big_queries, big_writes = queries_of(book(*lines(3000, "B")))

    assert big_queries - small_queries <= 2 * 4, (
        small_queries,
        big_queries,
    )  # two more batches, a few reads each
    assert (small_writes, big_writes) == ([30], [1000, 1000, 1000])


class TestBadInput:
    def test_no_key_or_a_wrong_key_is_401_and_stores_nothing(self, brand, alice, upload, client):
        assert upload(BOOK).status_code == 401
        wrong = upload(BOOK, HTTP_AUTHORIZATION="Bearer nope.nope")
        assert wrong.status_code == 401
        assert wrong.json()["outcome"] == "unauthorized"
        assert not Reconciliation.objects.exists()

    def test_another_brands_key_uploads_to_its_own_brand(self, brand, alice, bob, upload):
        summary_of(upload(BOOK, bob))

        assert Reconciliation.objects.get().brand == bob.brand

    def test_an_empty_file_is_400(self, alice, upload):
        answer = upload("", alice)

        assert answer.status_code == 400
        assert answer.json() == {
            "success": False,
            "outcome": "invalid_params",
            "error": "The file is empty. Fix: upload a CSV file whose first line names the columns.",
        }
        assert not Reconciliation.objects.exists()

    def test_a_file_of_blank_lines_is_empty_too(self, alice, upload):
        assert upload("\n\n", alice).status_code == 400

    def test_a_header_without_order_id_or_amount_names_the_missing_column(self, alice, upload):
        answer = upload("id,total,currency\n1,10,USD\n", alice)

        assert answer.status_code == 400
        assert "no order_id and no amount column" in answer.json()["error"]
        assert not Reconciliation.objects.exists()

    def test_a_header_without_an_amount_names_it(self, alice, upload):
        answer = upload("order_id,currency\n1,USD\n", alice)

        assert answer.status_code == 400
        assert "The header has no amount column" in answer.json()["error"]

    def test_more_rows_than_the_limit_is_413_and_stores_nothing(self, alice, upload, monkeypatch):
        monkeypatch.setattr("attribution.reconciliation.books.reader.MAX_ROWS", 3)

        answer = upload(book(*(f"M-{n},10,USD,,,,," for n in range(4))), alice)

        assert answer.status_code == 413
        assert (
            answer.json()["error"]
            == "The file has more than 3 rows. Fix: upload it in parts, a month at a time."
        )
        assert not Reconciliation.objects.exists() and not BookRow.objects.exists()

    def test_a_body_over_the_size_limit_is_413_naming_it(self, alice, upload, monkeypatch):
        monkeypatch.setattr("attribution.reconciliation.views.MAX_BYTES", 100)

        answer = upload(book(*["X-1,10,USD,,,,,"] * 10), alice)

        assert answer.status_code == 413
        assert answer.json()["error"].startswith("The file is larger than")
        assert not Reconciliation.objects.exists()

    def test_a_multipart_file_over_the_size_limit_is_413(self, alice, client, monkeypatch):
        from django.core.files.uploadedfile import SimpleUploadedFile

        monkeypatch.setattr("attribution.reconciliation.views.MAX_BYTES", 100)
        monkeypatch.setattr("attribution.reconciliation.views.MULTIPART_OVERHEAD", 10_000)
        upload = SimpleUploadedFile("big.csv", book(*["X-1,10,USD,,,,,"] * 10).encode())

        answer = client.post(URL, {"file": upload}, **alice.headers)

        assert answer.status_code == 413
        assert not Reconciliation.objects.exists()

    def test_a_file_that_is_not_utf8_is_400_and_stores_nothing(self, alice, upload):
        body = book("X-1,10,USD,,,,,").encode() + "Ü-2,10,USD,,,,,\n".encode("latin-1")

        answer = upload(body, alice)

        assert answer.status_code == 400
        assert "Line 3 is not UTF-8" in answer.json()["error"]
        assert not Reconciliation.objects.exists()

    def test_a_file_that_is_not_csv_is_400_naming_the_line(self, alice, upload):
        answer = upload(book("X-1,10,USD,,,,,", 'X-2,10,USD,"' + "x" * 200_000 + '",,,,'), alice)

        assert answer.status_code == 400
        assert answer.json()["error"].startswith(
            "Line 3 cannot be read as CSV: field larger than field limit"
        )
        assert not Reconciliation.objects.exists()

    def test_a_multipart_upload_without_the_file_field_is_400(self, alice, client):
        answer = client.post(URL, {"other": "x"}, **alice.headers)

        assert answer.status_code == 400 and "field named file" in answer.json()["error"]

    def test_an_inactive_brand_cannot_upload(self, brand, alice, upload):
        brand.is_active = False
        brand.save()

        answer = upload(BOOK, alice)

        assert (answer.status_code, answer.json()["outcome"]) == (400, "unresolved_domain")
        assert not Reconciliation.objects.exists()

    def test_a_failure_half_way_stores_nothing(self, brand, alice, upload, monkeypatch):
        def fail(run):
            raise RuntimeError("the database went away")

        monkeypatch.setattr("attribution.reconciliation.runs.summarize", fail)

        answer = upload(BOOK, alice)

        assert (answer.status_code, answer.json()["outcome"]) == (500, "handler_error")
        assert not Reconciliation.objects.exists() and not BookRow.objects.exists()
