"""The orders' answers of the stand-in: Shopify's GraphQL `orders(first, after, sortKey: UPDATED_AT, query:
"updated_at:>=… AND updated_at:<…")` with its pageInfo, opaque cursors and cost (the shop's bucket: the query's
requested points are taken before it runs, what it did not use given back, THROTTLED when the bucket lacks them,
MAX_COST_EXCEEDED over 1,000 points), and WooCommerce's /wp-json/wc/v3/orders paging (modified_after,
modified_before, dates_are_gmt, per_page at most 100, page; X-WP-Total and X-WP-TotalPages). The router
(shopify_routes.py, woocommerce_routes.py) dispatches here; the orders themselves: order_data.py.
"""

import base64
import math
import re
from datetime import UTC, datetime, timedelta

MAX_QUERY_COST = 1000  # Shopify refuses a single query asking for more
MAX_FIRST = 250
_CONDITION = re.compile(r"(updated_at|created_at):(>=|<=|>|<)'?([0-9T:\-.Z+]+)'?")
_OPERATORS = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
}
_FIELDS = {"updated_at": "updatedAt", "created_at": "createdAt"}


def requested_cost(query_text: str, first: int) -> int:
    """Shopify's requested cost of an orders query, as its calculator counts it: 2 for the query and the
    connection, and per order 1 with 1 more for each object selected in it (a scalar costs nothing)."""
    nodes = query_text.split("nodes", 1)[-1] if "nodes" in query_text else query_text.split("node", 1)[-1]
    inner = nodes.split("{", 1)[-1]
    objects = inner.count("{")
    return 2 + first * (1 + objects)


def shopify_orders(world, shop, variables: dict, query_text: str) -> dict:
    """The GraphQL answer (`data`, `extensions`) of an orders query on `shop`."""
    first = variables.get("first")
    if not isinstance(first, int) or not 0 < first <= MAX_FIRST:
        return {
            "errors": [
                {"message": f"first must be between 1 and {MAX_FIRST}", "extensions": {"code": "BAD_REQUEST"}}
            ]
        }
    requested = requested_cost(query_text, first)
    if requested > MAX_QUERY_COST:
        return {
            "errors": [
                {
                    "message": f"Query cost is {requested}, which exceeds the single query max cost limit "
                    f"({MAX_QUERY_COST}).",
                    "extensions": {"code": "MAX_COST_EXCEEDED", "cost": requested, "maxCost": MAX_QUERY_COST},
                }
            ]
        }
    with world.lock:
        if not world.spend(shop, requested):
            return {
                "errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}],
                "extensions": world.cost_extension(shop, requested, None),
            }
        matching = sorted(
            (order for order in shop.orders if _matches(order, variables.get("query") or "")),
            key=_key,
        )
        after = _cursor_key(variables.get("after"))
        if after is not None:
            matching = [order for order in matching if _key(order) > after]
        page = matching[:first]
        actual = 2 + len(page) * (requested - 2) // first
        shop.bucket_available = min(shop.bucket_size, shop.bucket_available + requested - actual)
        extensions = world.cost_extension(shop, requested, actual)
    return {
        "data": {
            "orders": {
                "pageInfo": {
                    "hasNextPage": len(matching) > first,
                    "endCursor": _cursor(page[-1]) if page else None,
                },
                "nodes": [dict(order) for order in page],
            }
        },
        "extensions": extensions,
    }


def woocommerce_orders(world, site, params: dict) -> tuple[object, dict]:
    """The body (a list of orders) and headers (X-WP-Total, X-WP-TotalPages) of a page of `site`'s orders.
    per_page is held to WooCommerce's 100 (WooCommerce itself refuses more with a 400)."""
    per_page = min(max(_int(params.get("per_page"), 10), 1), 100)
    page = max(_int(params.get("page"), 1), 1)
    gmt = str(params.get("dates_are_gmt", "")).lower() in ("1", "true")
    offset = timedelta(hours=0 if gmt else site.gmt_offset)
    after, before = (
        _moment(params.get("modified_after"), offset),
        _moment(params.get("modified_before"), offset),
    )
    with world.lock:
        chosen = [
            order
            for order in site.orders
            if (after is None or _moment(order["date_modified_gmt"]) > after)
            and (before is None or _moment(order["date_modified_gmt"]) < before)
        ]
    by = "date_modified_gmt" if params.get("orderby") == "modified" else "date_created_gmt"
    chosen.sort(key=lambda order: (order[by], order["id"]), reverse=params.get("order", "desc") == "desc")
    total = len(chosen)
    pages = max(math.ceil(total / per_page), 1) if total else 0
    body = [dict(order) for order in chosen[(page - 1) * per_page : page * per_page]]
    return body, {"X-WP-Total": str(total), "X-WP-TotalPages": str(pages)}


def _matches(order: dict, query: str) -> bool:
    for field, operator, value in _CONDITION.findall(query):
        moment = _moment(value)
        if moment is None or not _OPERATORS[operator](_moment(order[_FIELDS[field]]), moment):
            return False
    return True


def _key(order: dict) -> tuple:
    return (_moment(order["updatedAt"]), int(order["legacyResourceId"]))


def _cursor(order: dict) -> str:
    moment, number = _key(order)
    return base64.urlsafe_b64encode(f"{moment.isoformat()}|{number}".encode()).decode()


def _cursor_key(cursor) -> tuple | None:
    if not isinstance(cursor, str) or not cursor:
        return None
    try:
        moment, number = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        return (datetime.fromisoformat(moment), int(number))
    except ValueError:
        return None


def _moment(value, offset: timedelta = timedelta(0)) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC) - offset
    return moment.astimezone(UTC)


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
