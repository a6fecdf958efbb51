"""The creator program behind the Creators page's timing in `make bench-health`: a brand's 1,000 creators,
each with a discount code, and its clicks and attributed orders (with their commissions) spread over the
last 90 days, written oldest first with bulk inserts. Skipped for a brand that already has them (`drop_creators`
takes a brand's away, for a world made by an older version of this module)."""

import random
import time
from datetime import timedelta
from decimal import Decimal

CREATORS = 1_000
BATCH = 5_000


def fill_creators(brand, *, orders: int, clicks: int) -> None:
    from django.utils import timezone

    from attribution.models import Click, Commission, Order
    from brands.models import Creator, DiscountCode, Property

    if Creator.objects.filter(brand=brand).count() >= CREATORS:
        print(f"{brand.name}: {CREATORS:,} creators already there")
        return
    started = time.perf_counter()
    rng = random.Random(brand.pk)
    now = timezone.now()
    prop, _ = Property.objects.get_or_create(brand=brand, host=f"shop.bench-{brand.pk}.example")
    creators = Creator.objects.bulk_create(
        [Creator(brand=brand, name=f"Bench creator {i:04d}") for i in range(CREATORS)]
    )
    codes = DiscountCode.objects.bulk_create(
        [DiscountCode(brand=brand, creator=c, code=f"B{brand.pk}C{i:04d}") for i, c in enumerate(creators)]
    )

    def moments(count: int) -> list:
        """`count` moments of the last 90 days, oldest first: clicks and orders are written as they happen, so
        a period's rows sit together in their tables, as in production."""
        return sorted(now - timedelta(seconds=rng.randrange(90 * 86400)) for _ in range(count))

    click_times, order_times = moments(clicks), moments(orders)
    for first in range(0, clicks, BATCH):
        Click.objects.bulk_create(
            Click(brand=brand, property=prop, creator=rng.choice(creators), clicked_at=click_times[n])
            for n in range(first, min(clicks, first + BATCH))
        )
    for first in range(0, orders, BATCH):
        made = []
        for n in range(first, min(orders, first + BATCH)):
            i = rng.randrange(CREATORS)
            by = rng.choice(("click", "click", "code", "shopper"))
            amount = Decimal(rng.randrange(1_000, 30_000)) / 100
            made.append(
                Order(
                    brand=brand,
                    order_id=f"CR-{n}",
                    amount=amount,
                    currency="EUR" if n % 5 == 0 else "USD",
                    is_returning_customer=n % 3 == 0,
                    property=prop,
                    outcome="tracked",
                    attribution=by,
                    discount_code=codes[i] if by == "code" else None,
                    code_sent=codes[i].code if by != "shopper" and n % 2 == 0 else "",
                    creator=creators[i],
                    received_at=order_times[n],
                )
            )
        Order.objects.bulk_create(made)
        Commission.objects.bulk_create(
            Commission(
                brand=brand,
                order=o,
                creator=o.creator,
                state="cancelled" if k % 10 == 0 else "pending",
                cancelled_at=o.received_at if k % 10 == 0 else None,
                order_amount=o.amount,
                amount=(o.amount / 10).quantize(Decimal("0.01")),
                currency=o.currency,
                rate_percent=Decimal("10"),
                created_at=o.received_at,
                updated_at=o.received_at,
                attribution=o.attribution,
                is_returning_customer=o.is_returning_customer,
            )
            for k, o in enumerate(made)
        )
    from django.db import connection

    with connection.cursor() as cursor:  # as autovacuum would after such a load (its insert threshold)
        for table in (
            "attribution_order",
            "attribution_commission",
            "attribution_click",
            "brands_creator",
            "brands_discountcode",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    print(
        f"{brand.name}: {CREATORS:,} creators, {clicks:,} clicks and {orders:,} attributed orders "
        f"in {time.perf_counter() - started:.1f}s"
    )


def drop_creators(brand) -> None:
    """Take the brand's creator program away (its creators, codes, clicks and the attributed orders this module
    wrote, with their commissions), so that `fill_creators` writes it again: one statement per table, for a
    world of a million orders."""
    from django.db import connection

    orders = "SELECT id FROM attribution_order WHERE brand_id = %(brand)s AND order_id LIKE 'CR-%%'"
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
        for statement in (
            f"DELETE FROM attribution_commission WHERE brand_id = %(brand)s AND order_id IN ({orders})",
            "DELETE FROM attribution_order WHERE brand_id = %(brand)s AND order_id LIKE 'CR-%%'",
            "DELETE FROM attribution_click WHERE brand_id = %(brand)s",
            "DELETE FROM brands_discountcode WHERE brand_id = %(brand)s",
            "DELETE FROM brands_creator WHERE brand_id = %(brand)s",
        ):
            cursor.execute(statement, {"brand": brand.pk})
        # The tables as a fresh world's: the program written again is not spread over the space freed here.
        for table in ("attribution_commission", "attribution_order", "attribution_click"):
            cursor.execute(f"VACUUM FULL {table}")
        cursor.execute("RESET statement_timeout")
    print(f"{brand.name}: creator program dropped")
