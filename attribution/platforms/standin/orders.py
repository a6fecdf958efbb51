"""The orders' answers of the stand-in: Shopify's GraphQL `orders(...)` (pageInfo, cursors, the updated_at
filter, its cost) and WooCommerce's /wp-json/wc/v3/orders paging. Not built yet: the router answers 501 while
these raise NotImplementedError (the sync's work fills them in)."""


def shopify_orders(world, shop, variables: dict, query_text: str) -> dict:
    """The GraphQL answer (`data`, `extensions`) of an orders query on `shop`."""
    raise NotImplementedError("the stand-in does not answer Shopify's orders query yet")


def woocommerce_orders(world, site, params: dict) -> tuple[object, dict]:
    """The body (a list of orders) and headers (X-WP-Total, X-WP-TotalPages) of a page of `site`'s orders."""
    raise NotImplementedError("the stand-in does not answer WooCommerce's orders list yet")
