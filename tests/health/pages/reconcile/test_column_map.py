"""/health/reconcile/: an order book whose column names no alias knows, its columns mapped by hand on the
upload form, and where a run says each field was read from."""

import re
from html import unescape

import pytest

from attribution.models import Order, Reconciliation
from health.log.models import OutcomeEvent
from tests.health.pages.reconcile.conftest import PAGE, book_file, run_page, text_of

pytestmark = pytest.mark.django_db


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
