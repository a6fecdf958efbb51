"""The three book formats, told apart by the header (docs/reconciliation.md, "Formats"): generic, Shopify's
orders export (one row per line item, a byte order mark), a WooCommerce export by its columns' common
names; `,` or `;` between cells, and amounts read by the file's number format or refused with the reason."""

from decimal import Decimal

import pytest

from attribution.models import BookRow, Reconciliation
from tests import factories
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import book, rows_of, summary_of

pytestmark = pytest.mark.django_db

# Shopify's export, cut to the columns that matter plus some it has around them, in its own order.
SHOPIFY_HEADER = (
    "Name,Email,Financial Status,Paid at,Fulfillment Status,Accepts Marketing,Currency,Subtotal,Shipping,"
    "Taxes,Total,Discount Code,Discount Amount,Created at,Lineitem quantity,Lineitem name,Lineitem price,"
    "Notes,Note Attributes,Cancelled at,Refunded Amount,Id,Tags\n"
)


def shopify_row(
    name,
    *,
    status="paid",
    subtotal="",
    total="",
    code="",
    created="",
    notes="",
    cancelled="",
    refunded="",
    id_="",
    item="Tee",
    price="10.00",
):
    cells = [
        name,
        "x@example.com" if status else "",
        status,
        "",
        "",
        "",
        "USD" if subtotal else "",
        subtotal,
        "",
        "",
        total,
        code,
        "",
        created,
        "1",
        item,
        price,
        "",
        notes,
        cancelled,
        refunded,
        id_,
        "",
    ]
    return ",".join(f'"{c}"' if "," in c or "\n" in c else c for c in cells)


@pytest.fixture
def shopify_world(brand, creator):
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="#1001", order_amount="59.90")
    commission_for(brand, order_id="#1002", order_amount="100.00")
    commission_for(brand, order_id="#1004", order_amount="80.00")
    return brand


def shopify_book(*, bom=True):
    lines = [
        # #1001: three line items; the order's figures on its first row only.
        shopify_row(
            "#1001",
            subtotal="59.90",
            total="64.90",
            created="2026-11-24 10:15:00 -0500",
            id_="5001",
            item="Tee",
            price="19.90",
        ),
        shopify_row("#1001", status="", item="Cap", price="20.00"),
        shopify_row("#1001", status="", item="Socks", price="20.00"),
        # #1002: refunded whole.
        shopify_row(
            "#1002",
            status="refunded",
            subtotal="100.00",
            total="110.00",
            created="2026-11-24 11:00:00 -0500",
            refunded="110.00",
            id_="5002",
        ),
        shopify_row("#1002", status="", item="Cap", price="20.00"),
        # #1003: never arrived; the creator's code, and the click script's cart attribute.
        shopify_row(
            "#1003",
            subtotal="1,200.00",
            total="1,250.00",
            code="ANA10",
            created="2026-11-24 12:00:00 -0500",
            notes="gift_note: hi\nsms_click_id: ",
            id_="5003",
        ),
        # #1004: partly refunded: 80.00 less 20.00 refunded is what still earns.
        shopify_row(
            "#1004",
            status="partially_refunded",
            subtotal="80.00",
            total="88.00",
            created="2026-11-24 13:00:00 -0500",
            refunded="20.00",
            id_="5004",
        ),
    ]
    return ("\ufeff" if bom else "") + SHOPIFY_HEADER + "".join(line + "\n" for line in lines)


class TestShopify:
    def test_its_export_is_read_one_order_per_name_with_a_bom(self, shopify_world, alice, upload, client):
        run = summary_of(upload(shopify_book(), alice))

        assert run["format"] == "shopify"
        assert run["row_count"] == 7  # data rows, one per line item
        assert (run["order_id_column"], run["amount_column"]) == (
            "Name",
            "Subtotal",
        )  # the brand's events send names
        assert run["counts"] == {
            "matched": 1,
            "amount_mismatch": 1,
            "cancelled_at_brand": 1,
            "missing": 1,
            "invalid": 0,
            "not_in_book": 0,
        }
        rows = {r["order_id"]: r for r in rows_of(client, alice, run["id"])}
        assert [r["line"] for r in rows.values()] == [
            2,
            5,
            7,
            9,
        ]  # each order's first row (#1003's notes take two lines)
        assert rows["#1004"]["status"] == "amount_mismatch"
        assert "80.00 USD here, 60.00 USD in the book" in rows["#1004"]["detail"]
        assert rows["#1002"]["status"] == "cancelled_at_brand"
        assert run["commission_at_risk"] == [
            {"currency": "USD", "amount": "120.00"}
        ]  # 10 % of 1,200.00 by ANA10
        assert run["period"] == {"first": "2026-11-24T15:15:00Z", "last": "2026-11-24T18:00:00Z"}

    def test_without_a_bom_too(self, shopify_world, alice, upload):
        assert summary_of(upload(shopify_book(bom=False), alice))["counts"]["matched"] == 1

    def test_the_id_column_is_kept_when_the_brands_events_send_ids(self, brand, alice, upload):
        commission_for(brand, order_id="5001", order_amount="59.90")

        run = summary_of(upload(shopify_book(), alice))

        assert run["order_id_column"] == "Id"
        assert (run["counts"]["matched"], run["counts"]["missing"]) == (
            2,
            2,
        )  # 5002: refunded, never received

    def test_the_brand_chooses_name_and_total(self, shopify_world, alice, upload):
        run = summary_of(upload(shopify_book(), alice, query="order_id_column=name&amount_column=total"))

        assert (run["order_id_column"], run["amount_column"]) == ("Name", "Total")
        assert run["counts"]["amount_mismatch"] == 2  # #1001: 64.90 in the book; #1004: 68.00

    def test_the_brand_chooses_id(self, shopify_world, alice, upload):
        run = summary_of(upload(shopify_book(), alice, query="order_id_column=id"))

        assert run["order_id_column"] == "Id"
        assert run["counts"]["missing"] == 3  # the ids are not what this brand's events send

    def test_a_wrong_choice_is_400(self, alice, upload):
        answer = upload(shopify_book(), alice, query="amount_column=net")

        assert answer.status_code == 400 and answer.json()["error"].startswith(
            "amount_column must be subtotal or total"
        )
        assert not Reconciliation.objects.exists()

    def test_the_click_of_the_cart_attributes_is_read(self, brand, prop, creator, alice, upload, client):
        click = factories.ClickFactory(property=prop, creator=creator)
        text = (
            SHOPIFY_HEADER
            + shopify_row(
                "#2001",
                subtotal="50.00",
                created="2026-11-24 10:15:00 -0500",
                notes=f"gift_note: hi\nsms_click_id: {click.click_id}",
            )
            + "\n"
        )

        run = summary_of(upload(text, alice))

        assert BookRow.objects.get().click_id == click.click_id
        assert run["commission_at_risk"] == [{"currency": "USD", "amount": "5.00"}]

    def test_a_cancelled_at_date_cancels(self, brand, alice, upload):
        commission_for(brand, order_id="#3001")
        text = (
            SHOPIFY_HEADER
            + shopify_row("#3001", subtotal="100.00", cancelled="2026-11-25 10:00:00 -0500")
            + "\n"
        )

        assert summary_of(upload(text, alice))["counts"]["cancelled_at_brand"] == 1

    def test_an_export_without_its_subtotal_names_it(self, alice, upload):
        answer = upload("Name,Financial Status,Currency,Total\n#1,paid,USD,10\n", alice)

        assert answer.status_code == 400
        assert answer.json()["error"] == "The Shopify export has no Subtotal column."


WOO_HEADER = "Order Number,Order Status,Order Date,Order Total Amount,Order Currency,Coupons,Customer Note\n"


class TestWooCommerce:
    def test_its_common_column_names_are_read(self, brand, creator, alice, upload, client):
        factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
        commission_for(brand, order_id="301", order_amount="45.00", currency="EUR")
        commission_for(brand, order_id="302", order_amount="45.00", currency="EUR")
        text = WOO_HEADER + (
            "301,Completed,2026-11-24 10:15:00,45.00,EUR,,\n"
            "302,wc-refunded,2026-11-24 10:20:00,45.00,EUR,,\n"
            '303,Processing,2026-11-24 10:25,"1,250.00",EUR,"ana10, other",gift\n'
            "304,Pending payment,2026-11-24 10:30,10.00,EUR,,\n"
            "305,On hold,2026-11-24,€10.00,EUR,,\n"
        )

        run = summary_of(upload(text, alice))

        assert run["format"] == "woocommerce"
        assert (run["order_id_column"], run["amount_column"]) == ("Order Number", "Order Total Amount")
        assert run["counts"] == {
            "matched": 2,  # 301, and 304 never paid (cancelled in the book, never received)
            "amount_mismatch": 0,
            "cancelled_at_brand": 1,  # 302
            "missing": 1,  # 303, by its first coupon
            "invalid": 1,  # 305's amount
            "not_in_book": 0,
        }
        assert run["commission_at_risk"] == [{"currency": "EUR", "amount": "125.00"}]
        invalid = rows_of(client, alice, run["id"], status="invalid")[0]
        assert invalid["line"] == 6 and "'€10.00' does not read as a number" in invalid["detail"]

    @pytest.mark.parametrize(
        ("header", "row"),
        [
            ("Order ID,Status,Date,Order Total,Currency,Coupon Code", "401,completed,2026-11-24,10.00,USD,"),
            (
                "order id,order status,order date,order total,order currency,coupon code",
                "401,completed,2026-11-24,10.00,USD,",
            ),
        ],
    )
    def test_the_other_aliases(self, brand, alice, upload, header, row):
        commission_for(brand, order_id="401", order_amount="10.00")

        run = summary_of(upload(f"{header}\n{row}\n", alice))

        assert (run["format"], run["counts"]["matched"]) == ("woocommerce", 1)

    def test_an_export_without_a_total_names_it(self, alice, upload):
        answer = upload("Order ID,Order Currency\n1,USD\n", alice)

        assert (
            answer.status_code == 400
            and answer.json()["error"]
            == "The WooCommerce export has no Order Total column. Fix: map the column that holds the amount."
        )

    def test_an_unknown_status_is_refused_for_its_row(self, alice, upload, client):
        run = summary_of(upload("Order ID,Order Status,Order Total,Order Currency\n1,Lost,10,USD\n", alice))

        (row,) = rows_of(client, alice, run["id"])
        assert row["status"] == "invalid" and "status 'Lost' is not a status of this format" in row["detail"]


class TestSeparatorsAndNumbers:
    def test_semicolons_with_decimal_commas_and_a_bom(self, brand, alice, upload, client):
        commission_for(brand, order_id="S-1", order_amount="1234.50")
        text = "\ufefforder_id;amount;currency\nS-1;1.234,50;USD\nS-2;12,5;EUR\nS-3;1,234.50;USD\nS-4;59.90;USD\n"

        run = summary_of(upload(text, alice))

        assert (
            run["counts"]["matched"] == 1 and run["counts"]["missing"] == 1 and run["counts"]["invalid"] == 2
        )
        assert BookRow.objects.get(order_id="S-2").amount == Decimal("12.5")
        invalid = rows_of(client, alice, run["id"], status="invalid")
        assert "such as 1.234,50" in invalid[0]["detail"] and "'59.90'" in invalid[1]["detail"]

    def test_thousands_separators_in_a_comma_file(self, brand, alice, upload, client):
        commission_for(brand, order_id="K-1", order_amount="1234.50")

        run = summary_of(upload('order_id,amount,currency\nK-1,"1,234.50",USD\nK-2,"1.234,50",USD\n', alice))

        assert run["counts"]["matched"] == 1
        invalid = rows_of(client, alice, run["id"], status="invalid")[0]
        assert "'1.234,50' does not read as a number of this file (such as 1,234.50" in invalid["detail"]

    def test_crlf_line_ends_and_blank_lines(self, brand, alice, upload):
        run = summary_of(upload("order_id,amount,currency\r\nW-1,10,USD\r\n\r\nW-2,10,USD\r\n", alice))

        assert (run["row_count"], run["counts"]["missing"]) == (2, 2)

    def test_a_quoted_cell_across_lines_keeps_the_line_numbers(self, brand, alice, upload, client):
        run = summary_of(upload('order_id,amount,currency,code\nW-1,10,USD,"a\nb"\nW-2,x,USD,\n', alice))

        rows = rows_of(client, alice, run["id"])
        assert [(r["line"], r["status"]) for r in rows] == [(2, "missing"), (4, "invalid")]


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
        ('X-1,"1.234,50",USD,,,,,', "does not read as a number of this file (such as 1,234.50"),
        ("X-1,10,USD,,,not a click,,", "click_id could not be read"),
        ("X" * 300 + ",10,USD,,,,,", "order_id must be at most 255 characters"),
        ("X-1,10,USD,,A\0B,,,", "U+0000"),
    ],
)
def test_an_unreadable_row_is_invalid_with_its_reason(alice, upload, client, cells, reason):
    run = summary_of(upload(book(cells), alice))

    (row,) = rows_of(client, alice, run["id"])
    assert (row["status"], row["line"]) == ("invalid", 2)
    assert reason in row["detail"]
