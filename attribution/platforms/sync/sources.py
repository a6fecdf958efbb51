"""What the sync reads a connection's shop through, by platform: its API client with the connection's
credential, the window's order pages, what the sync asks of the platform's order shape, and the webhooks'
health check (sync.webhooks). A platform with no API here cannot be synced."""

import json
from dataclasses import dataclass
from datetime import datetime

from attribution.models import SyncRun
from brands.models import PlatformConnection

from ..apis import shopify as shopify_api
from ..apis.woocommerce import WooCommerceREST
from ..connect import shopify_tokens
from ..platform import Platform
from ..shopify import SHOPIFY
from ..woocommerce import WOOCOMMERCE
from . import runs, shopify_orders, webhooks, woocommerce_orders
from .acting import Shape


@dataclass
class Source:
    platform: Platform
    reader: object  # .page(cursor) -> Page
    shape: Shape
    api: object

    def check_webhooks(self, run: SyncRun, *, now: datetime) -> None:
        found = webhooks.check(self.platform.name, self.api, run.connection)
        if found:
            SyncRun.objects.filter(pk=run.pk).update(webhooks=found)
            run.webhooks = found

    def note_version(self, run: SyncRun, *, now: datetime) -> None:
        """Shopify serves a retired version as its oldest supported one: say so once a run."""
        served = getattr(self.api, "served_version", None)
        if served and served != shopify_api.API_VERSION and run.served_version != served[:16]:
            runs.note(
                run,
                kind="api_version",
                text=f"Shopify answered with API version {served}, not the pinned {shopify_api.API_VERSION}.",
                now=now,
                served_version=served[:16],
            )


def source_for(connection: PlatformConnection, run: SyncRun, *, sleep) -> Source:
    run.connection = connection
    start, end = run.window_start, run.window_end
    if connection.platform == SHOPIFY.name:
        admin = shopify_tokens.admin_of(connection, sleep=sleep)
        counts_total = connection.amount_counted == PlatformConnection.Amount.TOTAL
        return Source(
            SHOPIFY,
            shopify_orders.ShopifyOrders(
                admin, start=start, end=end, counts_total=counts_total, brand_id=connection.brand_id
            ),
            Shape(was_paid=shopify_orders.was_paid, as_placed=shopify_orders.as_placed),
            admin,
        )
    if connection.platform == WOOCOMMERCE.name:
        keys = json.loads(connection.credential_plain())
        rest = WooCommerceREST(
            connection.site_url or f"https://{connection.shop_domain}",
            keys["consumer_key"],
            keys["consumer_secret"],
            sleep=sleep,
        )
        return Source(
            WOOCOMMERCE,
            woocommerce_orders.WooCommerceOrders(rest, start=start, end=end, brand_id=connection.brand_id),
            Shape(was_paid=woocommerce_orders.was_paid, as_placed=woocommerce_orders.as_placed),
            rest,
        )
    raise ValueError(f"no API to sync a {connection.platform} shop with")
