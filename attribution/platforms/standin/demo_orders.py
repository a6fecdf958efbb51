"""The demo shops' orders that no webhook delivered (`make run`'s stand-in): once Acme Demo's shop is connected
with "Connect with Shopify", its "Sync now" of the last three days recovers them, each with its commission (Ana's
code ANA10 earns 10 %), a refund and a cancel followed; Globex Demo's site holds a few for its WooCommerce
connection. Placed in the three days before the stand-in starts."""

from datetime import datetime, timedelta

from .order_data import shopify_order, woo_order


def add_demo_orders(world, *, main_shop: str, other_site: str, now: datetime) -> None:
    start = (now - timedelta(days=3)).replace(minute=0, second=0, microsecond=0)

    def placed(hours: float) -> datetime:
        return start + timedelta(hours=hours)

    shop = world.shops[main_shop]
    shop.orders.extend(
        [
            shopify_order(1, placed_at=placed(2), subtotal="100.00", code="ANA10"),
            shopify_order(2, placed_at=placed(5), subtotal="45.50"),
            shopify_order(
                3,
                placed_at=placed(9),
                subtotal="80.00",
                code="ANA10",
                refunded="30.00",
                updated_at=placed(20),
            ),
            shopify_order(
                4, placed_at=placed(14), subtotal="62.00", code="ANA10", cancelled=True, updated_at=placed(16)
            ),
            shopify_order(5, placed_at=placed(26), subtotal="120.00", code="ANA10"),
            shopify_order(6, placed_at=placed(31), subtotal="19.90"),
            shopify_order(7, placed_at=placed(38), subtotal="74.00", code="STAFF50"),
            shopify_order(8, placed_at=placed(50), subtotal="58.00", code="ANA10"),
            shopify_order(9, placed_at=placed(55), subtotal="33.00"),
            shopify_order(10, placed_at=placed(60), subtotal="10.00", code="ANA10", test=True),
        ]
    )
    site = world.sites[other_site]
    site.orders.extend(
        [
            woo_order(1, placed_at=placed(3), total="40.00"),
            woo_order(2, placed_at=placed(27), total="65.00", status="completed"),
            woo_order(3, placed_at=placed(40), total="22.00", status="pending"),  # never paid: not recorded
            woo_order(
                4,
                placed_at=placed(52),
                total="90.00",
                status="refunded",
                refunded="90.00",
                modified_at=placed(58),
            ),
        ]
    )
