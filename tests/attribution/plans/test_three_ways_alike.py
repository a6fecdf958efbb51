"""Issue 56, done when "a Shopify order with three lines (two rules, a discount, shipping and tax) priced exactly,
from a webhook, the sync and an order book alike": one brand's stored plan (10 % by default, 15 % on BELT-01,
2.00 a unit on SCARF-01; base after discounts, without shipping, without tax) and one order of Ana's code, brought
in each way into a fresh database, in a shop whose prices exclude tax and in one whose prices include it.

The rules name SKUs: an order book's line items carry a sku, a price, a quantity and a discount only (issue 56,
"Order books"), so a vendor, product or collection rule could not take a book's line."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.management.demo.standin.order_data import shopify_order as shop_node
from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.models import Commission
from attribution.plans import versions
from attribution.platforms.sync.runner import sync_connection
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify
from tests.attribution.platforms.sync.conftest import clock, shopify_shop, yesterday  # noqa: F401 (by name)
from tests.attribution.reconciliation.conftest import apply_run, summary_of, upload  # noqa: F401
from tests.factories import DiscountCodeFactory

pytestmark = pytest.mark.django_db

PLAN = {
    "currency": "USD",
    "base": {"after_discounts": True, "shipping": False, "tax": False},
    "default": {"percent": "10"},
    "rules": [
        {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
        {"name": "Scarves", "when": {"skus": ["SCARF-01"]}, "flat": "2.00"},
    ],
    "effective_from": "2026-01-01T00:00:00Z",
}

# The order, as its shop sees it: each line's unit price, quantity, the discount ANA10 took off it and its tax.
# Prices without tax (8 %): 2 x 30.00 - 6.00 = 54.00 (tax 4.32); 20.00 (tax 1.60); 3 x 12.00 = 36.00 (tax 2.88);
# subtotal 110.00, shipping 5.00 (tax 0.40), total 124.20.
# Prices with tax (20 % inside): 54.00 holds 9.00; 24.00 holds 4.00; 36.00 holds 6.00; subtotal 114.00;
# shipping 6.00 (holding 1.00); total 120.00.
EXCLUDED = {
    "taxes_included": False,
    "lines": (
        {"sku": "LIN-M", "product_id": 9782123692332, "variant_id": 50398373085484, "vendor": "Acme",
         "price": "30.00", "quantity": 2, "discount": "6.00", "tax": "4.32"},
        {"sku": "BELT-01", "product_id": 9782123692340, "variant_id": 50398373085490, "vendor": "Acme",
         "price": "20.00", "quantity": 1, "tax": "1.60"},
        {"sku": "SCARF-01", "product_id": 9782123692341, "variant_id": 50398373085491, "vendor": "Acme",
         "price": "12.00", "quantity": 3, "tax": "2.88"},
    ),
    "subtotal": "110.00", "shipping": "5.00", "shipping_tax": "0.40", "total": "124.20",
}  # fmt: skip
INCLUDED = {
    "taxes_included": True,
    "lines": (
        {**EXCLUDED["lines"][0], "tax": "9.00"},
        {**EXCLUDED["lines"][1], "price": "24.00", "tax": "4.00"},
        {**EXCLUDED["lines"][2], "tax": "6.00"},
    ),
    "subtotal": "114.00", "shipping": "6.00", "shipping_tax": "1.00", "total": "120.00",
}  # fmt: skip

# Without tax: LIN-M  (60.00 - 6.00) x 10 %   = 5.40
#              BELT-01 20.00 x 15 %            = 3.00
#              SCARF-01 3 units x 2.00         = 6.00
#              14.40 on a base of 110.00 (shipping 5.00 and tax 9.20 left out)
# With tax:    LIN-M  (60.00 - 6.00 - 9.00) x 10 % = 4.50
#              BELT-01 (24.00 - 4.00) x 15 %        = 3.00
#              SCARF-01 3 units x 2.00              = 6.00
#              13.50 on a base of 45.00 + 20.00 + (36.00 - 6.00) = 95.00 (shipping 6.00 left out, the lines'
#              tax 19.00 taken out)
PRICED = {
    False: {
        "total": "14.40",
        "base": "110.00",
        "lines": [
            ("LIN-M", 2, "60", "6", "Default", "54.00", "10", None, "5.40"),
            ("BELT-01", 1, "20", "0", "Belts", "20.00", "15", None, "3.00"),
            ("SCARF-01", 3, "36", "0", "Scarves", "36.00", None, "6.00", "6.00"),
        ],
    },
    True: {
        "total": "13.50",
        "base": "95.00",
        "lines": [
            ("LIN-M", 2, "60", "6", "Default", "45.00", "10", None, "4.50"),
            ("BELT-01", 1, "24", "0", "Belts", "20.00", "15", None, "3.00"),
            ("SCARF-01", 3, "36", "0", "Scarves", "30.00", None, "6.00", "6.00"),
        ],
    },
}
MADE = {  # how each base was made
    False: {"gross": "116.00", "discounts": "6.00", "tax_taken_out": "0.00", "tax_added": "0.00",
            "shipping": "0.00", "total": "110.00"},
    True: {"gross": "120.00", "discounts": "6.00", "tax_taken_out": "19.00", "tax_added": "0.00",
           "shipping": "0.00", "total": "95.00"},
}  # fmt: skip
PRICED_FIELDS = ("sku", "quantity", "gross", "discount", "rule", "base", "percent", "flat", "commission")


def placed_at() -> datetime:
    return timezone.now().astimezone(UTC).replace(microsecond=0) - timedelta(hours=20)


def by_webhook(request, order: dict) -> Commission:
    """Shopify's orders/paid for the order, as the shop signs it."""
    connect(request.getfixturevalue("prop"), platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    body = shopify_order(
        subtotal=order["subtotal"],
        total=order["total"],
        codes=(("ANA10", "6.00"),),
        created_at=placed_at().isoformat(),
        updated_at=placed_at().isoformat(),
    )
    body["taxes_included"] = order["taxes_included"]
    body["line_items"] = [
        {
            "sku": line["sku"],
            "product_id": line["product_id"],
            "variant_id": line["variant_id"],
            "vendor": line["vendor"],
            "quantity": line["quantity"],
            "price": line["price"],
            "discount_allocations": [{"amount": line["discount"], "discount_application_index": 0}]
            if "discount" in line
            else [],
            "tax_lines": [{"price": line["tax"], "rate": 0.08, "title": "Tax"}],
        }
        for line in order["lines"]
    ]
    body["shipping_lines"] = [
        {
            "price": order["shipping"],
            "discount_allocations": [],
            "tax_lines": [{"price": order["shipping_tax"], "rate": 0.08, "title": "Tax"}],
        }
    ]
    response = post_shopify(request.getfixturevalue("client"), body_of(body), topic="orders/paid")
    assert response.json()["outcome"] == "tracked", response.content
    return Commission.objects.get()


def by_sync(request, order: dict) -> Commission:
    """The nightly sync, reading the order from the stand-in's orders query."""
    shop = request.getfixturevalue("shopify_shop")
    node = shop_node(
        1,
        placed_at=placed_at(),
        subtotal=order["subtotal"],
        code="ANA10",
        lines=order["lines"],
        shipping=order["shipping"],
    )
    node["taxesIncluded"] = order["taxes_included"]
    node["totalPriceSet"] = node["currentTotalPriceSet"] = {
        "shopMoney": {"amount": order["total"], "currencyCode": "USD"}
    }
    node["shippingLines"]["nodes"][0]["taxLines"] = [
        {"priceSet": {"shopMoney": {"amount": order["shipping_tax"], "currencyCode": "USD"}}}
    ]
    shop.orders.append(node)
    sync_connection(shop.connection.pk, trigger="nightly", sleep=request.getfixturevalue("clock").sleep)
    return Commission.objects.get()


BOOK_HEADER = (
    "Name,Financial Status,Currency,Subtotal,Shipping,Taxes,Total,Discount Code,Discount Amount,Created at,"
    "Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem discount,Id\n"
)


def by_book(request, order: dict) -> Commission:
    """Shopify's orders export (one row a line item, the order's figures on its first), applied by a
    reconciliation."""
    alice = request.getfixturevalue("alice")
    send, apply = request.getfixturevalue("upload"), request.getfixturevalue("apply_run")
    taxes = sum((Decimal(line["tax"]) for line in order["lines"]), Decimal(order["shipping_tax"]))
    created = placed_at().strftime("%Y-%m-%d %H:%M:%S +0000")
    rows = []
    for index, line in enumerate(order["lines"]):
        figures = (
            f"paid,USD,{order['subtotal']},{order['shipping']},{taxes},{order['total']},ANA10,6.00,{created}"
            if index == 0
            else ",,,,,,,,"
        )
        rows.append(
            f"#1001,{figures},{line['quantity']},{line['sku']},{line['price']},{line['sku']},"
            f"{line.get('discount', '')},{'5820398473216' if index == 0 else ''}\n"
        )
    run = summary_of(send(BOOK_HEADER + "".join(rows), alice))
    assert apply(run["id"], alice).json()["changes"]["created"] == 1
    return Commission.objects.get()


WAYS = {"webhook": by_webhook, "sync": by_sync, "book": by_book}


@pytest.mark.parametrize(
    ("way", "included"),
    [
        pytest.param(way, included, id=f"{way}-{'tax-included' if included else 'tax-excluded'}")
        for included in (False, True)
        for way in WAYS
    ],
)
def test_the_same_order_is_priced_alike_by_each_way_in(request, brand, creator, way, included):
    versions.save(brand=brand, document=PLAN, at=timezone.now(), created_by="test")
    DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")

    commission = WAYS[way](request, INCLUDED if included else EXCLUDED)

    expected = PRICED[included]
    calculation = commission.calculation
    assert (commission.amount, commission.plan_version) == (Decimal(expected["total"]), 2)
    assert (calculation["total"], calculation["base"]["total"]) == (expected["total"], expected["base"])
    assert [tuple(line[name] for name in PRICED_FIELDS) for line in calculation["lines"]] == expected["lines"]
    assert calculation["base"] == MADE[included]
    assert calculation["per_order"] == [] and calculation["limits"] == []
    assert calculation["lines"] == kept_lines(INCLUDED if included else EXCLUDED, expected, way)


def kept_lines(order: dict, expected: dict, way: str) -> list[dict]:
    """The calculation's lines whole: the same from the webhook and the sync; a book's line items carry no
    product, variant or vendor (the export's Lineitem columns read are sku, price, quantity, discount), and their
    tax is the order's Taxes spread over its lines and shipping (attribution.reconciliation.books.taxes)."""
    book = way == "book"
    return [
        {
            "sku": line["sku"],
            "product_id": "" if book else str(line["product_id"]),
            "variant_id": "" if book else str(line["variant_id"]),
            "vendor": "" if book else line["vendor"],
            "collections": [],
            "quantity": quantity,
            "gross": gross,
            "discount": discount,
            "tax": str(Decimal(line["tax"]).normalize()),
            "rule": rule,
            "base": base,
            "percent": percent,
            "flat": flat,
            "commission": commission,
        }
        for line, (_, quantity, gross, discount, rule, base, percent, flat, commission) in zip(
            order["lines"], expected["lines"], strict=True
        )
    ]
