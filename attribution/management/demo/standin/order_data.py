"""Orders for the stand-in's shops and sites, as the platforms' APIs give them: Shopify's in the GraphQL shape of
its orders query, WooCommerce's in the REST shape of wc/v3 (the same as its webhook's body). The tests, the
demo's orders that no webhook delivered, and `make bench-sync` build them here."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _money(amount: Decimal, currency: str) -> dict:
    return {"shopMoney": {"amount": str(amount), "currencyCode": currency}}


def shopify_order(
    number: int,
    *,
    placed_at: datetime,
    subtotal: str,
    currency: str = "USD",
    code: str | None = None,
    click_id: str | None = None,
    email: str | None = None,
    refunded: str = "0",
    cancelled: bool = False,
    test: bool = False,
    updated_at: datetime | None = None,
    lines: tuple = (),
    shipping: str | None = None,
) -> dict:
    """A Shopify order in the orders query's shape: #`number`, its id 450789000 + number; `refunded` of its
    subtotal given back (all of it: REFUNDED), or `cancelled` (VOIDED, its whole subtotal off). `lines`: its
    line items, each {"sku", "product_id", "variant_id", "vendor", "quantity", "price" (a unit's),
    "discount", "tax"}; `shipping`: its shipping line's price."""
    subtotal_amount, refund = Decimal(subtotal), Decimal(refunded)
    current = Decimal(0) if cancelled else subtotal_amount - refund
    status = "PAID"
    if cancelled:
        status = "REFUNDED"
    elif refund and refund >= subtotal_amount:
        status = "REFUNDED"
    elif refund:
        status = "PARTIALLY_REFUNDED"
    return {
        "legacyResourceId": str(450789000 + number),
        "name": f"#{1000 + number}",
        "createdAt": _stamp(placed_at),
        "updatedAt": _stamp(updated_at or placed_at),
        "cancelledAt": _stamp(updated_at or placed_at) if cancelled else None,
        "test": test,
        "email": email,
        "currencyCode": currency,
        "displayFinancialStatus": status,
        "subtotalPriceSet": _money(subtotal_amount, currency),
        "currentSubtotalPriceSet": _money(current, currency),
        "totalPriceSet": _money(subtotal_amount, currency),
        "currentTotalPriceSet": _money(current, currency),
        "discountCodes": [code] if code else [],
        "customAttributes": [{"key": "sms_click_id", "value": click_id}] if click_id else [],
        "customerJourneySummary": {"ready": False, "firstVisit": None},
        **(_shopify_lines(lines, shipping, currency) if lines else {}),
    }


def _shopify_lines(lines: tuple, shipping: str | None, currency: str) -> dict:
    def parts(discount, tax) -> dict:
        return {
            "discountAllocations": [{"allocatedAmountSet": _money(Decimal(discount), currency)}]
            if discount
            else [],
            "taxLines": [{"priceSet": _money(Decimal(tax), currency)}] if tax else [],
        }

    return {
        "taxesIncluded": False,
        "lineItems": {
            "pageInfo": {"hasNextPage": False},
            "nodes": [
                {
                    "sku": line.get("sku"),
                    "quantity": line.get("quantity", 1),
                    "vendor": line.get("vendor", ""),
                    "product": {"legacyResourceId": str(line["product_id"])}
                    if line.get("product_id")
                    else None,
                    "variant": {"legacyResourceId": str(line["variant_id"])}
                    if line.get("variant_id")
                    else None,
                    "originalUnitPriceSet": _money(Decimal(line["price"]), currency),
                    **parts(line.get("discount"), line.get("tax")),
                }
                for line in lines
            ],
        },
        "shippingLines": {
            "pageInfo": {"hasNextPage": False},
            "nodes": [{"originalPriceSet": _money(Decimal(shipping), currency), **parts(None, None)}]
            if shipping
            else [],
        },
    }


def woo_order(
    number: int,
    *,
    placed_at: datetime,
    total: str,
    currency: str = "USD",
    code: str | None = None,
    click_id: str | None = None,
    email: str | None = None,
    status: str = "processing",
    refunded: str = "0",
    modified_at: datetime | None = None,
    lines: tuple = (),
) -> dict:
    """A WooCommerce order in the REST shape (its id 700 + number): paid unless `status` says otherwise;
    `refunded` of its total given back (status refunded when all of it). `lines`: its line items, each {"sku",
    "product_id", "variation_id", "quantity", "subtotal", "total", "total_tax"}."""
    refund = Decimal(refunded)
    paid = status in ("processing", "completed", "refunded", "cancelled")
    return {
        "id": 700 + number,
        "number": str(700 + number),
        "status": status,
        "currency": currency,
        "total": total,
        "discount_total": "0.00",
        "shipping_total": "0.00",
        "total_tax": "0.00",
        "coupon_lines": [{"code": code, "discount": "0.00"}] if code else [],
        "meta_data": [{"id": 1, "key": "sms_click_id", "value": click_id}] if click_id else [],
        "billing": {"email": email or ""},
        "customer_id": 0,
        "refunds": [{"id": 9000 + number, "total": f"-{refund}"}] if refund else [],
        "date_created_gmt": (placed_at.astimezone(UTC).replace(tzinfo=None)).isoformat(timespec="seconds"),
        "date_modified_gmt": ((modified_at or placed_at).astimezone(UTC).replace(tzinfo=None)).isoformat(
            timespec="seconds"
        ),
        "date_paid_gmt": placed_at.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
        if paid
        else None,
        **(
            {"line_items": [{"variation_id": 0, "total_tax": "0.00", **line} for line in lines]}
            if lines
            else {}
        ),
    }


def spread(day_start: datetime, count: int, *, hours: float = 24) -> list[datetime]:
    """`count` moments spread evenly over `hours` from `day_start`."""
    step = timedelta(hours=hours) / max(count, 1)
    return [day_start + step * i for i in range(count)]
