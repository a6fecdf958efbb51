"""/health/reconcile/: a brand user uploads the order book, reads what a run found (counts, commission at
risk and difference, capture rate), its rows by category a page at a time, downloads the differences and
applies the run once. alice reads Acme's, bob (Globex) gets a 404 for them, an anonymous visitor is sent to
sign in, staff pick any brand."""

import csv
import io
import re
from decimal import Decimal
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from attribution.models import BookRow, Commission, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for

pytestmark = pytest.mark.django_db

PAGE = "/health/reconcile/"
BOOK = (
    "order_id,amount,currency,status,code,ordered_at\n"
    "A-1,100.00,USD,completed,,2026-11-20T10:00:00Z\n"
    "A-2,80.00,USD,completed,,2026-11-20T11:00:00Z\n"
    "A-3,50.00,USD,refunded,,2026-11-21T09:00:00Z\n"
    "A-4,120.00,USD,completed,ANA10,2026-11-21T10:00:00Z\n"
    "=A-5,$12.00,USD,completed,,2026-11-21T10:00:00Z\n"
)


def run_page(run) -> str:
    return f"/health/reconcile/{run.pk}/"


def text_of(response) -> str:
    assert response.status_code == 200, response.content.decode()[:2000]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode()))).strip()


def book_file(text=BOOK, name="book.csv"):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


@pytest.fixture
def acme(brand, prop, creator):
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")
    commission_for(brand, order_id="A-2", order_amount="100.00")
    commission_for(brand, order_id="A-3", order_amount="50.00")
    return brand


@pytest.fixture
def uploaded(alice_client, acme):
    alice_client.post(PAGE, {"file": book_file()})
    return Reconciliation.objects.get()


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


# An order export of a WooCommerce extension whose column names no alias knows.
EXTENSION = (
    "Order No.,State,Placed On,Grand Total,Currency Code,Voucher\n"
    "A-1,Completed,2026-11-20 10:00,100.00,USD,\n"
    "A-4,Processing,2026-11-21 10:00,120.00,USD,ANA10\n"
    "A-3,Refunded,2026-11-21 09:00,50.00,USD,\n"
)
EXTENSION_MAP = {
    "column_order_id": "Order No.",
    "column_amount": "Grand Total",
    "column_currency": "Currency Code",
    "column_status": "State",
    "column_code": "Voucher",
    "column_ordered_at": "Placed On",
}


def map_part(response) -> str:
    html = response.content.decode()
    return html[
        html.index('<details class="column-map"') : html.index("</details>", html.index("column-map"))
    ]


def selected(part: str, name: str) -> str | None:
    select = part[part.index(f'name="{name}"') :]
    select = select[: select.index("</select>")]
    found = re.search(r'<option value="([^"]*)" selected>', select)
    return unescape(found.group(1)) if found else None


class TestMapTheColumns:
    def test_the_map_is_closed_until_it_is_needed(self, alice_client, acme):
        part = map_part(alice_client.get(PAGE))

        assert '<details class="column-map" id="map">' in part  # not open
        assert '<input type="text" name="column_order_id"' in part and "<select" not in part

    def test_a_header_refused_for_its_missing_columns_offers_the_files_own_to_pick(self, alice_client, acme):
        response = alice_client.post(PAGE, {"file": book_file(EXTENSION, "extension.csv")})

        assert response.status_code == 400
        assert "The header has no order_id and no amount and no currency column." in unescape(
            response.content.decode()
        )
        part = map_part(response)
        assert '<details class="column-map" id="map" open>' in part
        assert "choose the file again" in part
        options = re.findall(r'<option value="([^"]+)"', part[part.index('name="column_order_id"') :])
        assert options[:6] == ["Order No.", "State", "Placed On", "Grand Total", "Currency Code", "Voucher"]
        assert re.findall(r'<input type="hidden" name="header" value="([^"]+)"', part) == options[:6]
        assert not Reconciliation.objects.exists()

    def test_the_columns_a_name_tells_are_picked_already(self, alice_client, acme):
        text = "Ref,Total,Currency,Order Status\nA-1,100.00,USD,completed\n"

        part = map_part(alice_client.post(PAGE, {"file": book_file(text)}))

        assert selected(part, "column_order_id") is None
        assert (selected(part, "column_amount"), selected(part, "column_currency")) == ("Total", "Currency")
        assert selected(part, "column_status") == "Order Status"

    def test_alice_maps_the_columns_and_lands_on_the_run_that_says_where_each_was_read(
        self, alice_client, alice, acme
    ):
        response = alice_client.post(PAGE, {"file": book_file(EXTENSION, "extension.csv"), **EXTENSION_MAP})

        run = Reconciliation.objects.get()
        assert response.status_code == 302 and response["Location"] == f"{run_page(run)}?brand={acme.pk}"
        assert (run.brand, run.uploaded_by, run.format) == (acme, alice, "generic")
        assert run.columns["status"] == "State" and run.mapped_columns == [
            "order_id",
            "amount",
            "currency",
            "status",
            "code",
            "ordered_at",
        ]
        assert (run.matched, run.missing, run.cancelled_at_brand) == (1, 1, 1)
        assert Order.objects.count() == 3 and not OutcomeEvent.objects.exists()
        page = text_of(alice_client.get(response["Location"])).replace(" ,", ",")
        assert (
            "Columns order id from Order No. (mapped), amount from Grand Total (mapped), currency from Currency "
            "Code (mapped), status from State (mapped), discount code from Voucher (mapped), ordered at from "
            "Placed On (mapped)"
        ) in page
        history = text_of(alice_client.get(PAGE))
        assert "extension.csv Generic CSV, columns mapped" in history

    def test_a_mapped_column_the_file_lacks_says_so_and_offers_the_files_columns(self, alice_client, acme):
        response = alice_client.post(
            PAGE, {"file": book_file(EXTENSION), **EXTENSION_MAP, "column_amount": "Total Paid"}
        )

        assert response.status_code == 400
        assert "The header has no column 'Total Paid' (column_amount)." in unescape(response.content.decode())
        part = map_part(response)
        assert selected(part, "column_order_id") == "Order No."  # what alice picked stays picked
        assert selected(part, "column_amount") is None
        assert not Reconciliation.objects.exists()

    def test_the_offered_columns_stay_when_the_file_was_not_chosen_again(self, alice_client, acme):
        response = alice_client.post(
            PAGE, {"header": ["Order No.", "Grand Total"], "column_order_id": "Order No."}
        )

        assert response.status_code == 400 and "Choose a CSV file" in response.content.decode()
        part = map_part(response)
        assert selected(part, "column_order_id") == "Order No."
        assert "Grand Total" in part

    def test_an_anonymous_visitor_cannot_upload_a_mapped_book(self, client, acme):
        response = client.post(PAGE, {"file": book_file(EXTENSION), **EXTENSION_MAP})

        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert not Reconciliation.objects.exists()

    def test_bob_cannot_upload_a_mapped_book_to_acme(self, client, bob, acme):
        client.force_login(bob)

        response = client.post(f"{PAGE}?brand={acme.pk}", {"file": book_file(EXTENSION), **EXTENSION_MAP})

        assert response.status_code == 404
        assert not Reconciliation.objects.exists()

    def test_a_run_without_a_map_says_where_its_fields_were_read(self, alice_client, uploaded):
        page = text_of(alice_client.get(run_page(uploaded))).replace(" ,", ",")

        assert (
            "Columns order id from order_id, amount from amount, currency from currency, status from status, "
            "discount code from code, ordered at from ordered_at Book period"
        ) in page


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


class TestCaptureRateOnTheOverview:
    def test_the_overview_shows_the_capture_rate_by_day_from_the_runs(self, alice_client, acme, uploaded):
        # A later run of the 21st wins that day; the 20th keeps the first run's count.
        later = Reconciliation.objects.create(
            brand=acme,
            format="generic",
            order_id_column="order_id",
            amount_column="amount",
            period_start=uploaded.period_start,
            period_end=uploaded.period_end,
            daily_capture={"2026-11-21": [4, 3]},
        )

        page = text_of(alice_client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"}))

        assert "Capture rate" in page
        assert "2026-11-21 4 3 75.0 %" in page
        assert "2026-11-20 2 2 100.0 %" in page
        html = alice_client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"}).content.decode()
        assert f'href="/health/reconcile/{later.pk}/?brand={acme.pk}">2026-11-21' in html

    def test_without_a_run_it_invites_an_upload(self, alice_client, acme):
        assert "No reconciliation covers these days." in text_of(alice_client.get("/health/"))

    def test_another_brands_runs_never_show(self, client, bob, uploaded, other_brand):
        client.force_login(bob)

        assert "No reconciliation covers these days." in text_of(
            client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"})
        )
        assert "book.csv" not in text_of(client.get(PAGE))


def test_the_nav_links_the_page(alice_client, acme):
    html = alice_client.get("/health/").content.decode()

    assert '<a href="/health/reconcile/"' in html and ">Reconcile</a>" in html


def test_what_if_says_an_order_from_the_book_was_not_an_order_confirmation(
    client, staff, alice_client, uploaded
):
    alice_client.post(f"{run_page(uploaded)}apply/")
    client.force_login(staff)

    page = text_of(client.get("/health/orders/A-4", {"brand": uploaded.brand_id}))

    assert "A reconciliation recorded this order from the brand's order book" in page
