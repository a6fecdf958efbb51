"""Reading a Shopify shop's orders of a window through the Admin GraphQL API (attribution.platforms.apis.shopify):
`orders(sortKey: UPDATED_AT, query: "updated_at:>=… AND updated_at:<…")` paged by cursor, each order turned into
the REST shape its webhook carries, so that attribution.platforms.shopify reads it as it reads a delivery
(one reading of Shopify's order, docs/decisions.md, "The nightly sync").
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils import timezone

from ..apis.errors import UnreadableAnswer
from . import collections

# Every order field the sync reads, as GraphQL names it, with the two amounts the connection counts (the subtotal,
# or the total: before and after refunds and edits). Shopify's calculator asks 1 point for an order and 1 for
# each object in it (a scalar is free): a MoneyBag and its shopMoney are 2, the journey and its first visit 2.
AMOUNTS = {
    False: ("subtotalPriceSet", "currentSubtotalPriceSet"),
    True: ("totalPriceSet", "currentTotalPriceSet"),
}
ORDER_FIELDS = """
      legacyResourceId name createdAt updatedAt cancelledAt test email currencyCode displayFinancialStatus
      {amounts}
      discountCodes
      customAttributes {{ key value }}
      customerJourneySummary {{ ready firstVisit {{ landingPage referrerUrl }} }}
      taxesIncluded
"""
# The order's lines (issue 56), in fields every version since 2024-01 has (the pinned 2026-10 included):
# `priceAfterAllDiscountsBeforeTaxesSet` is newer, so a line's amount after discounts is made as a webhook's is,
# from its unit price, quantity and discount allocations. A connection costs 2 and `first` times its node.
ALLOCATED = "discountAllocations { allocatedAmountSet { shopMoney { amount } } }"
TAXES = "taxLines { priceSet { shopMoney { amount } } }"
LINE_ITEMS_FIRST, SHIPPING_LINES_FIRST = 10, 1  # more is rare; an order with more is judged on its amount
CONNECTIONS = (
    (
        "lineItems",
        LINE_ITEMS_FIRST,
        "sku quantity vendor product { legacyResourceId } variant { legacyResourceId } "
        f"originalUnitPriceSet {{ shopMoney {{ amount }} }} {ALLOCATED} {TAXES}",
    ),
    (
        "shippingLines",
        SHIPPING_LINES_FIRST,
        f"originalPriceSet {{ shopMoney {{ amount }} }} {ALLOCATED} {TAXES}",
    ),
)
MAX_QUERY_POINTS = 1000  # Shopify refuses a query that asks for more
MAX_PAGE = 250  # Shopify's most orders a page

ORDERS_QUERY = (
    "query SyncOrders($first: Int!, $after: String, $query: String!) {{\n"
    "  orders(first: $first, after: $after, sortKey: UPDATED_AT, query: $query) {{\n"
    "    pageInfo {{ hasNextPage endCursor }}\n"
    "    nodes {{{fields}    }}\n"
    "  }}\n"
    "}}"
)


def orders_query(*, counts_total: bool) -> tuple[str, int]:
    """The orders query and the most orders a page may ask for under MAX_QUERY_POINTS."""
    amounts = " ".join(f"{name} {{ shopMoney {{ amount currencyCode }} }}" for name in AMOUNTS[counts_total])
    fields = ORDER_FIELDS.format(amounts=amounts)
    per_order = 1 + fields.count("{")
    for name, first, node in CONNECTIONS:
        fields += f"      {name}(first: {first}) {{ pageInfo {{ hasNextPage }} nodes {{ {node} }} }}\n"
        per_order += 2 + 1 + first * (1 + node.count("{"))  # the connection, its pageInfo, `first` nodes
    return ORDERS_QUERY.format(fields=fields), min(MAX_PAGE, (MAX_QUERY_POINTS - 2) // per_order)


# displayFinancialStatus, as the webhook's financial_status spells it.
FINANCIAL = {
    "AUTHORIZED": "authorized",
    "EXPIRED": "expired",
    "PAID": "paid",
    "PARTIALLY_PAID": "partially_paid",
    "PARTIALLY_REFUNDED": "partially_refunded",
    "PENDING": "pending",
    "REFUNDED": "refunded",
    "VOIDED": "voided",
}
# Never paid for: the sync records no such order (its webhook's orders/create would have, and its cancel follows).
NEVER_PAID = frozenset({"expired", "voided"})


@dataclass
class Page:
    documents: list  # the orders in the webhook's shape
    cursor: str  # where the next page starts
    more: bool


def window_query(start: datetime, end: datetime) -> str:
    return f"updated_at:>='{_stamp(start)}' AND updated_at:<'{_stamp(end)}'"


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ShopifyOrders:
    """The pages of a window's orders, through `admin` (a ShopifyAdmin)."""

    def __init__(
        self,
        admin,
        *,
        start: datetime,
        end: datetime,
        counts_total: bool = False,
        brand_id: int | None = None,
    ):
        self.admin, self.query_text = admin, window_query(start, end)
        self.document, self.page_size = orders_query(counts_total=counts_total)
        self.brand_id = brand_id  # whose products' collections the pages keep (sync.collections)

    def page(self, cursor: str) -> Page:
        data = self.admin.query(
            self.document, {"first": self.page_size, "after": cursor or None, "query": self.query_text}
        )
        orders = data.get("orders") if isinstance(data, dict) else None
        nodes = orders.get("nodes") if isinstance(orders, dict) else None
        info = (orders.get("pageInfo") or {}) if isinstance(orders, dict) else None
        if not isinstance(nodes, list) or not isinstance(info, dict):
            raise UnreadableAnswer("Shopify's orders answer is not the documented list of orders")
        more = bool(info.get("hasNextPage"))
        if more and not isinstance(info.get("endCursor"), str):
            raise UnreadableAnswer("Shopify's orders answer has a next page and no cursor for it")
        try:
            documents = [as_webhook_order(node) for node in nodes]
        except (AttributeError, TypeError, ValueError) as exc:
            raise UnreadableAnswer(
                f"Shopify's orders answer holds an order of another shape ({exc})"
            ) from exc
        if self.brand_id is not None:
            collections.refresh(
                "shopify", self.admin, brand_id=self.brand_id, documents=documents, now=timezone.now()
            )
        return Page(documents=documents, cursor=info.get("endCursor") or cursor, more=more)


def as_webhook_order(node: dict) -> dict:
    """A GraphQL order in the REST shape of its webhook (the fields attribution.platforms.shopify reads)."""
    journey = node.get("customerJourneySummary") or {}
    first_visit = (journey.get("firstVisit") or {}) if journey.get("ready") else {}
    legacy = node.get("legacyResourceId")
    order = {
        "id": int(legacy) if isinstance(legacy, str) and legacy.isdigit() else legacy,
        "name": node.get("name"),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
        "cancelled_at": node.get("cancelledAt"),
        "test": bool(node.get("test")),
        "email": node.get("email"),
        "currency": node.get("currencyCode"),
        "financial_status": FINANCIAL.get(node.get("displayFinancialStatus") or "", ""),
        "discount_codes": [{"code": code} for code in node.get("discountCodes") or []],
        "note_attributes": [
            {"name": a.get("key"), "value": a.get("value")}
            for a in node.get("customAttributes") or []
            if isinstance(a, dict)
        ],
        "landing_site": first_visit.get("landingPage") or "",
        "referring_site": first_visit.get("referrerUrl") or "",
    }
    for rest, graphql in _REST_AMOUNTS:
        money = ((node.get(graphql) or {}).get("shopMoney")) or {}
        if money.get("amount") is not None:
            order[rest] = money["amount"]
    order.update(_rest_lines(node))
    return order


def _rest_lines(node: dict) -> dict:
    """The order's lines in its webhook's shape (`line_items`, `shipping_lines`, `taxes_included`), for
    attribution.platforms.shopify to read; a list cut at its `first` says so (`lines_cut`), and its lines are
    then ignored."""
    items, shipping = node.get("lineItems") or {}, node.get("shippingLines") or {}
    if not items.get("nodes"):
        return {}
    lines = {
        "taxes_included": bool(node.get("taxesIncluded")),
        "line_items": [
            {
                "sku": line.get("sku"),
                "quantity": line.get("quantity"),
                "vendor": line.get("vendor"),
                "product_id": _legacy(line.get("product")),
                "variant_id": _legacy(line.get("variant")),
                "price": _amount(line.get("originalUnitPriceSet")),
                **_rest_parts(line),
            }
            for line in items["nodes"]
            if isinstance(line, dict)
        ],
        "shipping_lines": [
            {"price": _amount(line.get("originalPriceSet")), **_rest_parts(line)}
            for line in shipping.get("nodes") or []
            if isinstance(line, dict)
        ],
    }
    for name, listed in (("line_items", items), ("shipping_lines", shipping)):
        if (listed.get("pageInfo") or {}).get("hasNextPage"):
            lines["lines_cut"] = f"{name} lists more than the sync reads"
    return lines


def _rest_parts(line: dict) -> dict:
    return {
        "discount_allocations": [
            {"amount": _amount(part.get("allocatedAmountSet"))}
            for part in line.get("discountAllocations") or []
            if isinstance(part, dict)
        ],
        "tax_lines": [
            {"price": _amount(part.get("priceSet"))}
            for part in line.get("taxLines") or []
            if isinstance(part, dict)
        ],
    }


def _amount(money_bag) -> object:
    return ((money_bag or {}).get("shopMoney") or {}).get("amount") if isinstance(money_bag, dict) else None


def _legacy(owner) -> object:
    legacy = owner.get("legacyResourceId") if isinstance(owner, dict) else None
    return int(legacy) if isinstance(legacy, str) and legacy.isdigit() else legacy


_REST_AMOUNTS = (
    ("subtotal_price", "subtotalPriceSet"),
    ("current_subtotal_price", "currentSubtotalPriceSet"),
    ("total_price", "totalPriceSet"),
    ("current_total_price", "currentTotalPriceSet"),
)


def as_placed(order: dict) -> dict:
    """The order as it was placed: its amounts before refunds and edits (an order the sync records already
    cancelled is recorded as it was paid, then cancelled, as its webhooks would have)."""
    return {k: v for k, v in order.items() if k not in ("current_subtotal_price", "current_total_price")}


def was_paid(order: dict) -> bool:
    return order.get("financial_status") not in NEVER_PAID
