"""The orders' answers of the stand-in: WooCommerce's /wp-json/wc/v3/orders page (what the key handover's check
reads; X-WP-Total and X-WP-TotalPages), and Shopify's GraphQL `orders(...)` (pageInfo, cursors, the updated_at
filter, its cost), which the sync's work fills in: until then the router answers 501 for it."""


def shopify_orders(world, shop, variables: dict, query_text: str) -> dict:
    """The GraphQL answer (`data`, `extensions`) of an orders query on `shop`."""
    raise NotImplementedError("the stand-in does not answer Shopify's orders query yet")


def woocommerce_orders(world, site, params: dict) -> tuple[object, dict]:
    """The body (a page of orders, oldest change first) and headers of `site`'s orders: modified_after and
    modified_before (GMT, as dates_are_gmt=true asks) filter date_modified_gmt; per_page at most 100."""
    chosen = [
        order
        for order in site.orders
        if (
            not params.get("modified_after")
            or order.get("date_modified_gmt", "") > params["modified_after"][:19]
        )
        and (
            not params.get("modified_before")
            or order.get("date_modified_gmt", "") < params["modified_before"][:19]
        )
    ]
    chosen.sort(key=lambda order: (order.get("date_modified_gmt", ""), order.get("id", 0)))
    per_page = min(max(_int(params.get("per_page"), 10), 1), 100)
    page = max(_int(params.get("page"), 1), 1)
    pages = (len(chosen) + per_page - 1) // per_page
    shown = chosen[(page - 1) * per_page : page * per_page]
    return [dict(order) for order in shown], {"X-WP-Total": str(len(chosen)), "X-WP-TotalPages": str(pages)}


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
