"""POST /api/Affiliates/reconciliations with the brand's own columns (docs/reconciliation.md, "Your own
columns"): `column_<field>=<header>` maps a field to a column of the file, as query parameters of a text/csv
body or form fields of a multipart one. The map wins over the names a format reads; the fields it leaves are
found by name; the run says where each field was read from. A mapped column the file lacks is a 400 naming
it, and nothing is stored."""

import json
from decimal import Decimal
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from attribution.models import BookRow, Commission, Order, Reconciliation
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import URL, rows_of, summary_of
from tests.attribution.reconciliation.test_books import shopify_book

pytestmark = pytest.mark.django_db

# An order export of a WooCommerce extension whose column names no alias knows.
EXTENSION_HEADER = "Order No.,State,Placed On,Grand Total,Currency Code,Voucher,Customer E-mail\n"
EXTENSION_BOOK = EXTENSION_HEADER + (
    "701,Completed,2026-11-24 10:15:00,45.00,EUR,,a@example.com\n"
    "702,wc-refunded,2026-11-24 10:20:00,45.00,EUR,,b@example.com\n"
    '703,Processing,2026-11-24 10:25:00,"1,250.00",EUR,ANA10,c@example.com\n'
    "704,Pending payment,2026-11-24 10:30:00,10.00,EUR,,d@example.com\n"
    "705,Lost,2026-11-24 10:35:00,10.00,EUR,,e@example.com\n"
)
EXTENSION_MAP = {
    "column_order_id": "Order No.",
    "column_amount": "Grand Total",
    "column_currency": "Currency Code",
    "column_status": "State",
    "column_code": "Voucher",
    "column_ordered_at": "Placed On",
}


@pytest.fixture
def shop(brand, creator):
    """Acme received 701 and 702, each with a pending commission; ANA10 is its creator's code."""
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="701", order_amount="45.00", currency="EUR")
    commission_for(brand, order_id="702", order_amount="45.00", currency="EUR")
    return brand


def mapped(**columns) -> str:
    return urlencode({f"column_{field}": header for field, header in columns.items()})


class TestAnExtensionsExport:
    def test_unmapped_it_is_refused_naming_the_missing_columns(self, shop, alice, upload):
        answer = upload(EXTENSION_BOOK, alice)

        assert answer.status_code == 400
        assert answer.json()["outcome"] == "invalid_params"
        assert answer.json()["error"].startswith(
            "The header has no order_id and no amount and no currency column. Fix: map the file's columns "
            "that hold them"
        )
        assert not Reconciliation.objects.exists() and not OutcomeEvent.objects.exists()

    def test_the_brand_maps_it_reconciles_and_applies_it(self, shop, alice, upload, apply_run, client):
        answer = upload(EXTENSION_BOOK, alice, query=urlencode(EXTENSION_MAP))

        assert answer.status_code == 201
        run = answer.json()["reconciliation"]
        assert run["format"] == "generic"
        assert run["columns"] == {
            "order_id": "Order No.",
            "amount": "Grand Total",
            "currency": "Currency Code",
            "status": "State",
            "code": "Voucher",
            "click_id": None,
            "ordered_at": "Placed On",
            "test": None,
        }
        assert run["mapped_columns"] == ["order_id", "amount", "currency", "status", "code", "ordered_at"]
        assert (run["order_id_column"], run["amount_column"]) == ("Order No.", "Grand Total")
        assert run["counts"] == {
            "matched": 2,  # 701; 704 was never paid, and never arrived
            "amount_mismatch": 0,
            "cancelled_at_brand": 1,  # 702, refunded
            "missing": 1,  # 703, by its voucher
            "invalid": 1,  # 705's status
            "not_in_book": 0,
        }
        assert run["commission_at_risk"] == [{"currency": "EUR", "amount": "125.00"}]
        assert run["period"] == {"first": "2026-11-24T10:15:00Z", "last": "2026-11-24T10:30:00Z"}
        stored = Reconciliation.objects.get()
        assert stored.columns["status"] == "State" and stored.mapped_columns == run["mapped_columns"]
        assert BookRow.objects.get(order_id="703").code == "ANA10"
        assert not OutcomeEvent.objects.exists()  # uploading changes nothing

        applied = apply_run(run["id"], alice)

        assert applied.status_code == 200
        assert applied.json()["changes"] == {"created": 1, "updated": 0, "cancelled": 1, "kept": 0}
        created = Order.objects.get(brand=shop, order_id="703")
        assert (created.amount, created.currency, created.commission.amount) == (
            Decimal("1250.00"),
            "EUR",
            Decimal("125.00"),
        )
        assert Commission.objects.get(order__order_id="702").state == Commission.State.CANCELLED
        events = {e.order_id: e for e in OutcomeEvent.objects.all()}
        assert sorted(events) == ["702", "703"]
        assert {e.endpoint for e in events.values()} == {"reconciliation"}
        assert json.loads(events["703"].request_body)["line"] == 4

        again = summary_of(upload(EXTENSION_BOOK, alice, query=urlencode(EXTENSION_MAP)))

        assert (again["counts"]["missing"], again["counts"]["cancelled_at_brand"]) == (0, 0)

    def test_an_unknown_status_stays_an_invalid_row_with_its_reason(self, shop, alice, upload, client):
        run = summary_of(upload(EXTENSION_BOOK, alice, query=urlencode(EXTENSION_MAP)))

        (row,) = rows_of(client, alice, run["id"], status="invalid")
        assert (row["line"], row["order_id"]) == (6, "705")
        assert row["detail"].startswith("status 'Lost' is not a status of this format (")
        assert "processing" in row["detail"] and "canceled" in row["detail"]

    def test_as_a_multipart_form_with_the_map_in_its_fields(self, shop, alice, client):
        upload = SimpleUploadedFile("extension.csv", EXTENSION_BOOK.encode(), content_type="text/csv")

        run = summary_of(client.post(URL, {"file": upload, **EXTENSION_MAP}, **alice.headers))

        assert (run["filename"], run["counts"]["missing"]) == ("extension.csv", 1)
        assert run["columns"]["amount"] == "Grand Total"


@pytest.mark.parametrize(
    ("status", "cancelled"),
    [
        ("completed", False),
        ("", False),
        ("Processing", False),
        ("On hold", False),
        ("wc-completed", False),
        ("cancelled", True),
        ("Canceled", True),
        ("refunded", True),
        ("Failed", True),
        ("Pending payment", True),
        ("checkout-draft", True),
    ],
)
def test_a_mapped_status_is_read_with_the_generic_and_woocommerce_statuses(alice, upload, status, cancelled):
    text = f"Ref,Total,Currency,State\nS-1,10.00,USD,{status}\n"

    summary_of(upload(text, alice, query=mapped(order_id="Ref", status="State")))

    row = BookRow.objects.get()
    assert (row.status != "invalid", row.cancelled) == (True, cancelled)


def test_the_map_wins_over_the_names_a_format_reads(brand, alice, upload):
    commission_for(brand, order_id="W-1", order_amount="40.00")
    # A WooCommerce export, told by Order ID; its Order Total includes shipping, Net Total is what earns.
    text = "Order ID,Order Status,Order Total,Net Total,Order Currency\nW-1,completed,45.00,40.00,USD\n"

    unmapped = summary_of(upload(text, alice))
    mapped_run = summary_of(upload(text, alice, query=mapped(amount="net total")))

    assert (unmapped["format"], unmapped["counts"]["amount_mismatch"]) == ("woocommerce", 1)
    assert (mapped_run["format"], mapped_run["counts"]["matched"]) == ("woocommerce", 1)
    assert mapped_run["columns"]["amount"] == "Net Total"  # as the file spells it
    assert mapped_run["mapped_columns"] == ["amount"]


def test_the_map_wins_over_a_generic_column_of_the_same_field(brand, alice, upload):
    commission_for(brand, order_id="R-1")
    text = "order_id,Order Ref,amount,currency\n17,R-1,100.00,USD\n"

    run = summary_of(upload(text, alice, query=mapped(order_id="Order Ref")))

    assert run["counts"]["matched"] == 1
    assert run["columns"]["order_id"] == "Order Ref"


def test_the_fields_a_map_leaves_are_found_by_their_names_and_common_aliases(alice, upload):
    text = "Ref,Total,Currency,Order Status,Coupon Code,click_id,Date,test\nR-1,10.00,USD,completed,,,2026-11-24,no\n"

    run = summary_of(upload(text, alice, query=mapped(order_id="Ref")))

    assert run["columns"] == {
        "order_id": "Ref",
        "amount": "Total",
        "currency": "Currency",
        "status": "Order Status",
        "code": "Coupon Code",
        "click_id": "click_id",
        "ordered_at": "Date",
        "test": "test",
    }
    assert run["mapped_columns"] == ["order_id"]


def test_a_column_mapped_to_one_field_is_not_read_for_another(alice, upload):
    # "Status" holds the shipping state here; the brand maps its payment column to the status.
    text = "order_id,amount,currency,Status,Payment\nP-1,10.00,USD,shipped,refunded\n"

    run = summary_of(upload(text, alice, query=mapped(status="Payment")))

    assert run["columns"]["status"] == "Payment"
    assert BookRow.objects.get().cancelled is True


def test_a_shopify_export_keeps_its_line_items_under_a_map(brand, alice, upload):
    commission_for(brand, order_id="5001", order_amount="59.90")

    run = summary_of(upload(shopify_book(), alice, query=mapped(order_id="Id")))

    assert run["format"] == "shopify" and run["row_count"] == 7
    assert run["columns"]["order_id"] == "Id" and run["columns"]["status"] == "Financial Status"
    assert run["columns"]["click_id"] == "Note Attributes"
    assert (run["counts"]["matched"], run["counts"]["missing"]) == (2, 2)  # 5002: refunded, never received


def test_a_run_without_a_map_says_where_each_field_was_read(alice, upload):
    run = summary_of(upload("order_id,amount,currency,ordered_at\nG-1,10.00,USD,2026-11-24\n", alice))

    assert run["columns"] == {
        "order_id": "order_id",
        "amount": "amount",
        "currency": "currency",
        "status": None,
        "code": None,
        "click_id": None,
        "ordered_at": "ordered_at",
        "test": None,
    }
    assert run["mapped_columns"] == []


def test_an_empty_column_maps_nothing(alice, upload):
    run = summary_of(
        upload("order_id,amount,currency\nE-1,10.00,USD\n", alice, query="column_status=&column_code=")
    )

    assert run["mapped_columns"] == []


class TestBadMaps:
    def test_a_mapped_column_the_header_lacks_is_400_naming_it(self, alice, upload):
        answer = upload(
            EXTENSION_BOOK, alice, query=urlencode({**EXTENSION_MAP, "column_amount": "Total Paid"})
        )

        assert answer.status_code == 400
        assert answer.json() == {
            "success": False,
            "outcome": "invalid_params",
            "error": "The header has no column 'Total Paid' (column_amount). Fix: map a column the file has: "
            "Order No., State, Placed On, Grand Total, Currency Code, Voucher, Customer E-mail.",
        }
        assert not Reconciliation.objects.exists() and not BookRow.objects.exists()

    def test_a_mapped_column_the_header_lacks_is_400_in_any_format(self, alice, upload):
        answer = upload(shopify_book(), alice, query=mapped(click_id="Cart Attributes"))

        assert answer.status_code == 400
        assert answer.json()["error"].startswith(
            "The header has no column 'Cart Attributes' (column_click_id)."
        )

    def test_a_field_no_book_has_is_400(self, alice, upload):
        answer = upload(EXTENSION_BOOK, alice, query="column_orderid=Order%20No.")

        assert answer.status_code == 400
        assert answer.json()["error"].startswith(
            "column_orderid is not a field of a book. Fix: map column_order_id,"
        )
        assert not Reconciliation.objects.exists()

    def test_one_column_mapped_to_two_fields_is_400(self, alice, upload):
        answer = upload(EXTENSION_BOOK, alice, query=mapped(order_id="Order No.", code="order no."))

        assert answer.status_code == 400
        assert answer.json()["error"] == (
            "The column 'order no.' is mapped to both order_id and code. Fix: map each column to one field."
        )

    def test_a_shopify_choice_and_a_map_of_the_same_field_is_400(self, alice, upload):
        answer = upload(shopify_book(), alice, query="order_id_column=name&column_order_id=Id")

        assert answer.status_code == 400
        assert answer.json()["error"].startswith("order_id_column chooses between Shopify's columns")

    def test_an_overlong_column_name_is_400(self, alice, upload):
        answer = upload(EXTENSION_BOOK, alice, query=mapped(order_id="x" * 65))

        assert answer.status_code == 400
        assert answer.json()["error"] == (
            "column_order_id is longer than 64 characters. Fix: name the column as the file's header does."
        )


class TestAccess:
    def test_an_anonymous_mapped_upload_is_401_and_stores_nothing(self, shop, upload):
        answer = upload(EXTENSION_BOOK, query=urlencode(EXTENSION_MAP))

        assert (answer.status_code, answer.json()["outcome"]) == (401, "unauthorized")
        assert not Reconciliation.objects.exists()

    def test_bob_maps_his_own_book_and_cannot_read_alices(self, shop, alice, bob, upload, client):
        alices = summary_of(upload(EXTENSION_BOOK, alice, query=urlencode(EXTENSION_MAP)))
        bobs = summary_of(upload(EXTENSION_BOOK, bob, query=urlencode(EXTENSION_MAP)))

        assert Reconciliation.objects.get(pk=bobs["id"]).brand == bob.brand
        assert bobs["counts"]["missing"] == 2  # Globex received neither 701 nor 703
        answer = client.get(f"{URL}/{alices['id']}", **bob.headers)
        assert (answer.status_code, answer.json()["outcome"]) == (404, "not_found")
