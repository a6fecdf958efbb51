"""The demo shops' orders that no webhook delivered (`make run`'s stand-in): once Globex Demo's shop is connected
with "Connect with Shopify", its "Sync now" of the last three days (the form's preset) recovers all ten, each with
its commission (Olga's code OLGA10 earns 12 %), a refund and a cancel followed; its WooCommerce site holds a few
for that connection. Placed between the start of the day two days before (UTC) and now, so the last three days
hold every one of them whatever the hour."""

from datetime import UTC, datetime, time, timedelta

from .order_data import shopify_order, woo_order

# The demo codes at Globex Demo (attribution/management/demo/shops.py makes them).
CODE = "OLGA10"
BLACKLISTED_CODE = "GLOBEXSTAFF"
SPAN_HOURS = 64  # the orders' times below, spread over the three days


def add_demo_orders(world, *, shop: str, site: str, now: datetime) -> None:
    day0 = datetime.combine(now.astimezone(UTC).date() - timedelta(days=2), time.min, tzinfo=UTC)
    span = now - day0  # at least 48 hours

    def placed(hours: float) -> datetime:
        return (day0 + span * (hours / SPAN_HOURS)).replace(microsecond=0)

    world.shops[shop].orders.extend(
        [
            shopify_order(1, placed_at=placed(2), subtotal="100.00", code=CODE),
            shopify_order(2, placed_at=placed(5), subtotal="45.50"),
            shopify_order(
                3, placed_at=placed(9), subtotal="80.00", code=CODE, refunded="30.00", updated_at=placed(20)
            ),
            shopify_order(
                4, placed_at=placed(14), subtotal="62.00", code=CODE, cancelled=True, updated_at=placed(16)
            ),
            shopify_order(5, placed_at=placed(26), subtotal="120.00", code=CODE),
            shopify_order(6, placed_at=placed(31), subtotal="19.90"),
            shopify_order(7, placed_at=placed(38), subtotal="74.00", code=BLACKLISTED_CODE),
            shopify_order(8, placed_at=placed(50), subtotal="58.00", code=CODE),
            shopify_order(9, placed_at=placed(55), subtotal="33.00"),
            shopify_order(10, placed_at=placed(60), subtotal="10.00", code=CODE, test=True),
        ]
    )
    world.sites[site].orders.extend(
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
