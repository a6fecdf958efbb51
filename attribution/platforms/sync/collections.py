"""The collections of the products a sync's page names (issue 56): Shopify's collection handles, WooCommerce's
category slugs. An order's line items do not carry them, so the sync reads each product's once and keeps them
(brands.models.ProductCollections), read again when a day old; a webhook's lines then use what is kept
(attribution.platforms.recording). Read before the page's orders are recorded, so theirs use them too.

A product read fails quietly: its collections stay as kept (or none), and the orders are recorded as ever.
"""

import logging
from datetime import datetime, timedelta

from brands.models import ProductCollections, Property
from brands.resolution import forget_domain

from ..apis.errors import CredentialRevoked, PlatformAPIError

logger = logging.getLogger(__name__)

REFRESHED_EVERY = timedelta(days=1)
SHOPIFY_PRODUCTS_A_CALL = 25  # 25 products and 20 collections each: within Shopify's 1,000 points a query
SHOPIFY_COLLECTIONS_FIRST = 20
WOOCOMMERCE_PRODUCTS_A_CALL = 100  # WooCommerce's most a page

SHOPIFY_PRODUCTS_QUERY = (
    "query ProductCollections($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { legacyResourceId "
    f"collections(first: {SHOPIFY_COLLECTIONS_FIRST}) {{ nodes {{ handle }} }} }} }} }}"
)
WOOCOMMERCE_PRODUCTS_PATH = "/wp-json/wc/v3/products"


def product_ids(documents: list) -> set[str]:
    """The product ids the page's orders' line items name (the webhook's shape)."""
    found = set()
    for document in documents:
        for line in document.get("line_items") or () if isinstance(document, dict) else ():
            product = line.get("product_id") if isinstance(line, dict) else None
            if isinstance(product, int | str) and not isinstance(product, bool) and str(product).strip():
                found.add(str(product).strip()[:255])
    return found


def refresh(platform: str, api, *, brand_id: int, documents: list, now: datetime) -> None:
    """Read and keep the collections of the page's products not kept, or kept more than a day ago."""
    wanted = product_ids(documents)
    if not wanted:
        return
    fresh = set(
        ProductCollections.objects.filter(
            brand_id=brand_id,
            platform=platform,
            product_id__in=wanted,
            refreshed_at__gte=now - REFRESHED_EVERY,
        ).values_list("product_id", flat=True)
    )
    stale = sorted(wanted - fresh)
    if not stale:
        return
    try:
        found = _read_shopify(api, stale) if platform == "shopify" else _read_woocommerce(api, stale)
    except CredentialRevoked:
        raise  # the order pages would be refused too: the run stops as it does for them
    except PlatformAPIError as exc:
        logger.warning("product collections not read", extra={"brand_id": brand_id, "error": str(exc)[:200]})
        return
    keep(platform, brand_id=brand_id, found=found, now=now)


def keep(platform: str, *, brand_id: int, found: dict[str, list[str]], now: datetime) -> None:
    """Upsert the products' collections; the first kept for a brand makes its orders read them (its resolution,
    which says whether it keeps any, is forgotten)."""
    if not found:
        return
    first = not ProductCollections.objects.filter(brand_id=brand_id).exists()
    ProductCollections.objects.bulk_create(
        [
            ProductCollections(
                brand_id=brand_id, platform=platform, product_id=product, collections=names, refreshed_at=now
            )
            for product, names in found.items()
        ],
        update_conflicts=True,
        unique_fields=["brand", "platform", "product_id"],
        update_fields=["collections", "refreshed_at"],
    )
    if first:
        for domain in set(
            Property.objects.filter(brand_id=brand_id).values_list("registrable_domain", flat=True)
        ):
            forget_domain(domain)


def _read_shopify(admin, products: list[str]) -> dict[str, list[str]]:
    found = {}
    for start in range(0, len(products), SHOPIFY_PRODUCTS_A_CALL):
        ids = [
            f"gid://shopify/Product/{product}"
            for product in products[start : start + SHOPIFY_PRODUCTS_A_CALL]
        ]
        data = admin.query(SHOPIFY_PRODUCTS_QUERY, {"ids": ids})
        for node in data.get("nodes") or ():
            if isinstance(node, dict) and node.get("legacyResourceId"):
                found[str(node["legacyResourceId"])] = _names(
                    (node.get("collections") or {}).get("nodes"), "handle"
                )
    return found


def _read_woocommerce(rest, products: list[str]) -> dict[str, list[str]]:
    found = {}
    for start in range(0, len(products), WOOCOMMERCE_PRODUCTS_A_CALL):
        chunk = products[start : start + WOOCOMMERCE_PRODUCTS_A_CALL]
        params = {"include": ",".join(chunk), "per_page": str(WOOCOMMERCE_PRODUCTS_A_CALL)}
        listed = rest.get(WOOCOMMERCE_PRODUCTS_PATH, params=params).json()
        for product in listed if isinstance(listed, list) else ():
            if isinstance(product, dict) and product.get("id") is not None:
                found[str(product["id"])] = _names(product.get("categories"), "slug")
    return found


def _names(listed, key: str) -> list[str]:
    return [
        item[key][:255] for item in listed or () if isinstance(item, dict) and isinstance(item.get(key), str)
    ][:50]
