"""Reconciling a brand's order book (docs/reconciliation.md): every book order lands in exactly one
category, the summary says what the missing ones cost, and applying puts them right once."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.models import BookRow, Commission, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import URL

pytestmark = pytest.mark.django_db

HEADER = "order_id,amount,currency,status,code,click_id,ordered_at,test\n"


def summary_of(response) -> dict:
    assert response.status_code in (200, 201), response.content
    return response.json()["reconciliation"]


def rows_of(client, caller, run_id, **query) -> list[dict]:
    answer = client.get(f"{URL}/{run_id}", query, **caller.headers)
    assert answer.status_code == 200, answer.content
    return answer.json()["reconciliation"]["rows"]


@pytest.fixture
def book_world(brand, alice, creator):
    """Acme's received orders, one per category the book will find."""
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")  # matched
    commission_for(brand, order_id="A-2", order_amount="100.00")  # the book says 80.00
    commission_for(brand, order_id="A-3", order_amount="50.00")  # the book cancelled it
    # A-4 never arrived; it carries ANA10, so it would earn 10 % of 120.00.
    factories.OrderFactory(brand=brand, order_id="A-9", received_at=datetime(2026, 11, 20, 9, tzinfo=UTC))
    return brand


BOOK = (
    HEADER
    + "A-1,100.00,USD,completed,,,2026-11-20T10:00:00Z,\n"
    + "A-2,80.00,USD,completed,,,2026-11-20T11:00:00Z,\n"
    + "A-3,50.00,USD,refunded,,,2026-11-21T09:00:00Z,\n"
    + "A-4,120.00,USD,completed,ANA10,,2026-11-21T10:00:00Z,\n"
    + "A-5,$12.00,USD,completed,,,2026-11-21T10:00:00Z,\n"
)


def test_each_book_order_is_in_exactly_one_category(book_world, alice, upload, client):
    run = summary_of(upload(BOOK, alice))

    assert run["format"] == "generic"
    assert run["row_count"] == 5
    assert run["counts"] == {
        "matched": 1,
        "amount_mismatch": 1,
        "cancelled_at_brand": 1,
        "missing": 1,
        "invalid": 1,
        "not_in_book": 1,  # A-9, received on the 20th, is not in the book
    }
    assert run["period"] == {"first": "2026-11-20T10:00:00Z", "last": "2026-11-21T10:00:00Z"}
    assert run["commission_at_risk"] == [{"currency": "USD", "amount": "12.00"}]
    assert run["commission_difference"] == [{"currency": "USD", "amount": "-2.00"}]
    assert run["applied"] is False
    assert run["capture_rate"] == 0.75  # of four readable orders

    rows = {r["order_id"] or r["line"]: r for r in rows_of(client, alice, run["id"])}
    assert [r["line"] for r in rows.values()] == [2, 3, 4, 5, 6]  # the header is line 1
    assert rows["A-4"]["status"] == "missing"
    assert "Never received" in rows["A-4"]["detail"] and "12.00 USD" in rows["A-4"]["detail"]
    assert rows["A-5"]["status"] == "invalid"
    assert "'$12.00' does not read as a number" in rows["A-5"]["detail"]


def test_uploading_changes_nothing(book_world, alice, upload):
    before = (Order.objects.count(), list(Commission.objects.values_list("state", "order_amount")))
    upload(BOOK, alice)
    assert (Order.objects.count(), list(Commission.objects.values_list("state", "order_amount"))) == before
    assert not OutcomeEvent.objects.exists()


def test_apply_creates_updates_and_cancels_then_a_second_apply_changes_nothing(book_world, alice, upload, client):
    run = summary_of(upload(BOOK, alice))

    applied = client.post(f"{URL}/{run['id']}/apply", **alice.headers)

    assert applied.status_code == 200
    body = applied.json()
    assert body["applied"] is True
    assert body["changes"] == {"created": 1, "updated": 1, "cancelled": 1}
    assert body["reconciliation"]["applied"] is True
    created = Order.objects.get(brand=book_world, order_id="A-4")
    assert created.outcome == "tracked" and created.commission.amount == Decimal("12.00")
    assert Commission.objects.get(order__order_id="A-2").order_amount == Decimal("80.00")
    assert Commission.objects.get(order__order_id="A-3").state == Commission.State.CANCELLED
    events = OutcomeEvent.objects.filter(endpoint="reconciliation").order_by("order_id")
    assert [(e.order_id, e.outcome) for e in events] == [("A-2", "tracked"), ("A-3", "tracked"), ("A-4", "tracked")]
    assert all(e.request_body and f'"reconciliation": {run["id"]}' in e.request_body for e in events)

    again = client.post(f"{URL}/{run['id']}/apply", **alice.headers)

    assert again.status_code == 200
    assert again.json()["changes"] == {"created": 0, "updated": 0, "cancelled": 0}
    assert "already applied" in again.json()["message"]
    assert OutcomeEvent.objects.filter(endpoint="reconciliation").count() == 3


def test_the_same_book_after_an_apply_finds_nothing_to_put_right(book_world, alice, upload, client):
    first = summary_of(upload(BOOK, alice))
    client.post(f"{URL}/{first['id']}/apply", **alice.headers)

    second = summary_of(upload(BOOK, alice))

    assert second["counts"]["missing"] == 0
    assert second["counts"]["amount_mismatch"] == 0
    assert second["counts"]["cancelled_at_brand"] == 0
    assert second["counts"]["matched"] == 4


def test_a_missing_order_is_judged_at_its_order_time_not_at_the_upload(brand, prop, alice, creator, upload, client):
    click = factories.ClickFactory(
        property=prop, creator=creator, clicked_at=timezone.now() - timedelta(days=60)
    )  # far outside today's 30-day window, inside it when the order was placed
    ordered = (timezone.now() - timedelta(days=55)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run = summary_of(upload(HEADER + f"B-1,200.00,USD,completed,,{click.click_id},{ordered},\n", alice))
    assert run["commission_at_risk"] == [{"currency": "USD", "amount": "20.00"}]

    client.post(f"{URL}/{run['id']}/apply", **alice.headers)

    order = Order.objects.get(order_id="B-1")
    assert (order.outcome, order.click_id, order.commission.amount) == ("tracked", click.pk, Decimal("20.00"))


def test_a_locked_or_paid_commission_is_not_moved(brand, alice, upload, client):
    commission_for(brand, order_id="L-1", state=Commission.State.LOCKED)
    commission_for(brand, order_id="P-1", state=Commission.State.PAID)
    run = summary_of(upload(HEADER + "L-1,100.00,USD,cancelled,,,,\nP-1,90.00,USD,completed,,,,\n", alice))
    assert run["counts"]["cancelled_at_brand"] == 1 and run["counts"]["amount_mismatch"] == 1

    body = client.post(f"{URL}/{run['id']}/apply", **alice.headers).json()

    assert body["changes"] == {"created": 0, "updated": 0, "cancelled": 0}
    assert set(Commission.objects.values_list("state", flat=True)) == {"locked", "paid"}
    rows = rows_of(client, alice, run["id"])
    assert [r["change"] for r in rows] == ["kept", "kept"]
    assert "locked" in rows[0]["change_detail"] and "paid" in rows[1]["change_detail"]


def test_an_order_refused_when_it_arrived_says_why_it_is_missing(brand, alice, upload, client, api):
    api.post("/api/order_confirmation", {"orderId": "R-1", "orderAmount": "$59.90", "currency": "USD", "page_url": "https://shop.acme.example/thanks"})
    run = summary_of(upload(HEADER + "R-1,59.90,USD,,,,,\n", alice))

    (row,) = rows_of(client, alice, run["id"])
    assert row["status"] == "missing"
    assert "was refused: invalid_order_amount" in row["detail"]


def test_a_repeated_order_id_counts_once(brand, alice, upload, client):
    run = summary_of(upload(HEADER + "D-1,10,USD,,,,,\nD-2,10,USD,,,,,\nD-1,10,USD,,,,,\n", alice))

    assert run["counts"]["missing"] == 2 and run["counts"]["invalid"] == 1
    assert rows_of(client, alice, run["id"], status="invalid")[0]["detail"] == (
        "The order id repeats line 2; only that row counts."
    )


def test_test_orders_are_compared_in_the_test_namespace(brand, alice, upload):
    commission_for(brand, order_id="T-1", is_test=True)
    run = summary_of(upload(HEADER + "T-1,100.00,USD,,,,,true\nT-1,100.00,USD,,,,,false\n", alice))
    assert (run["counts"]["matched"], run["counts"]["missing"]) == (1, 1)


def test_rows_are_paged_by_a_thousand(brand, alice, upload, client):
    run = summary_of(upload(HEADER + "".join(f"P-{n},10,USD,,,,,\n" for n in range(1, 1502)), alice))

    second = client.get(f"{URL}/{run['id']}", {"page": 2}, **alice.headers).json()["reconciliation"]

    assert (second["page"], second["pages"], len(second["rows"])) == (2, 2, 501)
    assert second["rows"][0]["line"] == 1002


def test_the_row_listing_reads_a_page_with_a_fixed_number_of_queries(brand, alice, upload, client, django_assert_max_num_queries):
    run = summary_of(upload(HEADER + "".join(f"Q-{n},10,USD,,,,,\n" for n in range(300)), alice))
    with django_assert_max_num_queries(8):
        client.get(f"{URL}/{run['id']}", **alice.headers)


class TestEveryPathOfAnotherBrandsRun:
    def test_is_404(self, brand, alice, bob, upload, client):
        run = summary_of(upload(HEADER + "X-1,10,USD,,,,,\n", alice))
        assert client.get(f"{URL}/{run['id']}", **bob.headers).status_code == 404
        assert client.post(f"{URL}/{run['id']}/apply", **bob.headers).status_code == 404
        assert Reconciliation.objects.get().applied_at is None


class TestBadInput:
    def test_no_key_or_a_wrong_key_is_401(self, brand, alice, client):
        assert client.post(URL, HEADER, content_type="text/csv").status_code == 401
        wrong = client.post(URL, HEADER, content_type="text/csv", HTTP_AUTHORIZATION="Bearer nope.nope")
        assert wrong.status_code == 401
        assert client.get(f"{URL}/1").status_code == 401

    def test_an_empty_file_is_400(self, alice, upload):
        answer = upload("", alice)
        assert answer.status_code == 400
        assert "empty" in answer.json()["error"]

    def test_a_header_without_order_id_or_amount_names_the_missing_column(self, alice, upload):
        answer = upload("id,total,currency\n1,10,USD\n", alice)
        assert answer.status_code == 400
        assert "no order_id and no amount column" in answer.json()["error"]
        assert not Reconciliation.objects.exists()

    def test_a_woocommerce_export_without_its_total_names_it(self, alice, upload):
        answer = upload("Order ID,Order Currency\n1,USD\n", alice)
        assert answer.status_code == 400 and "Order Total" in answer.json()["error"]

    def test_more_rows_than_the_limit_is_413_and_stores_nothing(self, alice, upload, monkeypatch):
        monkeypatch.setattr("attribution.reconciliation.formats.MAX_ROWS", 3)
        answer = upload(HEADER + "".join(f"M-{n},10,USD,,,,,\n" for n in range(4)), alice)
        assert answer.status_code == 413
        assert "more than 3 rows" in answer.json()["error"]
        assert not Reconciliation.objects.exists() and not BookRow.objects.exists()

    def test_a_body_over_50_mb_is_413_naming_the_limit(self, alice, upload, monkeypatch):
        monkeypatch.setattr("attribution.reconciliation.views.MAX_BYTES", 100)
        answer = upload(HEADER + "X-1,10,USD,,,,,\n" * 10, alice)
        assert answer.status_code == 413
        assert "larger than" in answer.json()["error"]
        assert not Reconciliation.objects.exists()

    def test_a_file_that_is_not_utf8_is_400_and_stores_nothing(self, alice, upload):
        answer = upload(HEADER.encode() + b"X-1,10,USD,,,,,\n" + "Ü-2,10,USD,,,,,\n".encode("latin-1"), alice)
        assert answer.status_code == 400
        assert "Line 3 is not UTF-8" in answer.json()["error"]
        assert not Reconciliation.objects.exists()

    @pytest.mark.parametrize(
        ("cells", "reason"),
        [
            ("X-1,,USD,,,,,", "amount is empty"),
            ("X-1,10,XYZ,,,,,", "'XYZ' is not an ISO 4217 currency code"),
            ("X-1,10,USD,lost,,,,", "status 'lost' is not a status"),
            ("X-1,10,USD,,,,yesterday,", "ordered_at 'yesterday' is not a date"),
            ("X-1,10,USD,,,,,maybe", "test 'maybe' is not true or false"),
            (",10,USD,,,,,", "order_id must not be empty"),
            ("X-1,0,USD,,,,,", "amount must be greater than 0"),
            ("X-1,\"1.234,50\",USD,,,,,", "does not read as a number of this file (such as 1,234.50"),
            ("X-1,10,USD,,,not a click,,", "click_id could not be read"),
            ("X" * 300 + ",10,USD,,,,,", "order_id must be at most 255 characters"),
        ],
    )
    def test_an_unreadable_row_is_invalid_with_its_reason(self, alice, upload, client, cells, reason):
        run = summary_of(upload(HEADER + cells + "\n", alice))
        (row,) = rows_of(client, alice, run["id"])
        assert (row["status"], row["line"]) == ("invalid", 2)
        assert reason in row["detail"]


class TestFormats:
    def test_semicolons_with_decimal_commas_and_a_bom(self, brand, alice, upload, client):
        commission_for(brand, order_id="S-1", order_amount="1234.50")
        text = "\ufefforder_id;amount;currency\nS-1;1.234,50;USD\nS-2;12,5;EUR\nS-3;1,234.50;USD\n"
        run = summary_of(upload(text, alice))
        assert run["counts"]["matched"] == 1 and run["counts"]["missing"] == 1 and run["counts"]["invalid"] == 1
        invalid = rows_of(client, alice, run["id"], status="invalid")[0]
        assert "such as 1.234,50" in invalid["detail"]

    def test_thousands_separators_in_a_comma_file(self, brand, alice, upload):
        commission_for(brand, order_id="K-1", order_amount="1234.50")
        run = summary_of(upload('order_id,amount,currency\nK-1,"1,234.50",USD\n', alice))
        assert run["counts"]["matched"] == 1

    def test_a_multipart_upload_with_the_file_field(self, brand, alice, client):
        from django.core.files.uploadedfile import SimpleUploadedFile

        book = SimpleUploadedFile("book.csv", b"order_id,amount,currency\nM-1,10,USD\n", content_type="text/csv")
        answer = client.post(URL, {"file": book}, **alice.headers)
        run = summary_of(answer)
        assert (run["filename"], run["counts"]["missing"]) == ("book.csv", 1)

    def test_a_multipart_upload_without_the_file_field_is_400(self, alice, client):
        answer = client.post(URL, {"other": "x"}, **alice.headers)
        assert answer.status_code == 400 and "field named file" in answer.json()["error"]
