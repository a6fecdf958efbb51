"""Reading a WooCommerce site's orders of a window through its REST API (attribution.platforms.apis.woocommerce):
`GET /wp-json/wc/v3/orders?modified_after=…&modified_before=…&dates_are_gmt=true&per_page=100&page=N`, oldest
change first. The listed orders have their webhook's shape, so attribution.platforms.woocommerce reads them as it
reads a delivery.

Paged by number: an order changed while the run reads moves past the window's end (the run's start) and out of
the listing, which may shift a later order onto a page already read; the next window starts before this run's
start, so that order is read then.
"""

from datetime import UTC, datetime

from django.utils import timezone

from ..apis.errors import UnreadableAnswer
from ..woocommerce import PAID, UNDONE
from . import collections
from .shopify_orders import Page

ORDERS_PATH = "/wp-json/wc/v3/orders"
PAGE_SIZE = 100  # WooCommerce's most


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


class WooCommerceOrders:
    """The pages of a window's orders, through `rest` (a WooCommerceREST)."""

    def __init__(self, rest, *, start: datetime, end: datetime, brand_id: int | None = None):
        self.rest, self.page_size = rest, PAGE_SIZE
        self.brand_id = brand_id  # whose products' categories the pages keep (sync.collections)
        self.params = {
            "modified_after": _stamp(start),
            "modified_before": _stamp(end),
            "dates_are_gmt": "true",
            "per_page": str(self.page_size),
            "orderby": "modified",
            "order": "asc",
        }

    def page(self, cursor: str) -> Page:
        number = int(cursor) if cursor.isdigit() else 1
        answer = self.rest.get(ORDERS_PATH, params={**self.params, "page": str(number)})
        try:
            documents = answer.json()
        except ValueError as exc:
            raise UnreadableAnswer(f"WooCommerce's orders page {number} is not JSON") from exc
        if not isinstance(documents, list):
            raise UnreadableAnswer(f"WooCommerce's orders page {number} is not a list of orders")
        if self.brand_id is not None:
            collections.refresh(
                "woocommerce", self.rest, brand_id=self.brand_id, documents=documents, now=timezone.now()
            )
        total_pages = answer.headers.get("X-WP-TotalPages", "")
        last = int(total_pages) if total_pages.isdigit() else number
        return Page(documents=documents, cursor=str(number + 1), more=number < last and bool(documents))


def as_placed(order: dict) -> dict:
    """The order as it was paid: its refunds left out (a cancelled or refunded order the sync records is
    recorded as paid, then cancelled)."""
    placed = {k: v for k, v in order.items() if k != "refunds"}
    if placed.get("status") in UNDONE:
        placed["status"] = "processing"
    return placed


def was_paid(order: dict) -> bool:
    """Paid (processing, completed), or undone after a payment (date_paid_gmt set)."""
    status = order.get("status")
    return status in PAID or (status in UNDONE and bool(order.get("date_paid_gmt")))
