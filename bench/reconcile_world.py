"""`make bench-reconcile`'s world and books (bench/reconcile.py measures them): the bench brand, its property,
creator, code and clicks, its received orders with pending commissions covering order ids RB-0 .. RB-199999,
2,000,000 orders of another brand beside them as a shared table holds them, and generic books whose rows fall
in each category as a real book's do. Imported once Django is set up (bench/reconcile.py, setup_django)."""

import time
from pathlib import Path

BRAND = "Reconcile bench"
RECEIVED_UP_TO = 200_000  # the received orders cover RB-0 .. RB-199999 (every book here reads from them)


def category(i: int) -> str:
    """Which category book row i is meant to fall in (by i % 100), the same for every book."""
    n = i % 100
    if n < 78:
        return "matched"
    if n < 86:
        return "drifted"
    if n < 90:
        return "cancelled"
    if n < 98:
        return "missing"
    return "invalid"


# --- the world ---------------------------------------------------------------------------------------------


def ensure_world() -> None:
    """The bench brand, its property, creator, code and clicks, and its received orders (once)."""
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    from attribution.models import Click, Commission, Order
    from brands.models import Brand, Creator, DiscountCode, Property

    brand, _ = Brand.objects.get_or_create(name=BRAND, defaults={"commission_rate_percent": Decimal("10")})
    prop, _ = Property.objects.get_or_create(
        host="shop.reconcile-bench.example", defaults={"brand": brand, "is_primary": True}
    )
    creator, _ = Creator.objects.get_or_create(brand=brand, name="Bench creator")
    DiscountCode.objects.get_or_create(brand=brand, code="BENCH10", defaults={"creator": creator})
    now = timezone.now()
    if Click.objects.filter(brand=brand).count() < 1000:
        Click.objects.bulk_create(
            Click(brand=brand, property=prop, creator=creator, clicked_at=now - timedelta(days=1))
            for _ in range(1000)
        )
    _bystanders()
    have = Order.objects.filter(brand=brand).count()
    _analyze()
    wanted = sum(1 for i in range(RECEIVED_UP_TO) if category(i) in ("matched", "drifted", "cancelled"))
    if have >= wanted:
        print(f"{BRAND}: {have:,} received orders already there")
        return
    started = time.perf_counter()
    Order.objects.filter(brand=brand).delete()
    received_at = now - timedelta(days=3)
    batch = []
    for i in range(RECEIVED_UP_TO):
        if category(i) not in ("matched", "drifted", "cancelled"):
            continue
        batch.append(
            Order(
                brand=brand,
                order_id=f"RB-{i}",
                amount=Decimal("100.00"),
                currency="USD",
                outcome="tracked",
                property=prop,
                page_host=prop.host,
                creator=creator,
                received_at=received_at,
            )
        )
        if len(batch) == 5000:
            _store(batch, creator, Order, Commission, received_at)
            batch = []
    if batch:
        _store(batch, creator, Order, Commission, received_at)
    _analyze()
    print(
        f"{BRAND}: stored {wanted:,} received orders with their commissions in {time.perf_counter() - started:.0f} s"
    )


BYSTANDER_ORDERS = 2_000_000


def _bystanders() -> None:
    """Other brands' orders: in production the orders table is not one brand's, and the planner reads a
    batch's orders by the unique index (brand, order id) rather than scan them all. One INSERT ... SELECT."""
    from django.db import connection

    from brands.models import Brand

    other, _ = Brand.objects.get_or_create(name="Reconcile bench bystander")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM attribution_order WHERE brand_id = %s", [other.pk])
        have = cursor.fetchone()[0]
        if have >= BYSTANDER_ORDERS:
            return
        started = time.perf_counter()
        cursor.execute("SET statement_timeout = 0")  # one bulk load; the service's timeout is for requests
        cursor.execute(
            """
            INSERT INTO attribution_order (brand_id, order_id, is_test, amount, currency, is_returning_customer,
                page_host, outcome, attribution, code_sent, received_at, trace)
            SELECT %s, 'BY-' || g, false, 50, 'USD', false, '', 'no_attribution', 'none', '',
                   now() - (g %% 365) * interval '1 day', '[]'::jsonb
            FROM generate_series(1, %s::integer) AS g
            ON CONFLICT DO NOTHING
            """,
            [other.pk, BYSTANDER_ORDERS],
        )
        cursor.execute("RESET statement_timeout")
    print(f"other brands: {BYSTANDER_ORDERS - have:,} orders in {time.perf_counter() - started:.0f} s")


def _analyze() -> None:
    """Fresh planner statistics, as autovacuum keeps them in production: right after a bulk load the planner
    would think the brand has a few dozen orders and scan them all for each batch."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in (
            "attribution_order",
            "attribution_commission",
            "attribution_bookrow",
            "attribution_reconciliation",
        ):
            cursor.execute(f"ANALYZE {table}")


def _store(orders, creator, Order, Commission, at) -> None:
    from decimal import Decimal

    stored = Order.objects.bulk_create(orders)
    Commission.objects.bulk_create(
        Commission(
            brand_id=o.brand_id,
            order=o,
            creator=creator,
            order_amount=o.amount,
            amount=Decimal("10.00"),
            currency="USD",
            rate_percent=Decimal("10"),
            created_at=at,
            updated_at=at,
            attribution=o.attribution,
            is_returning_customer=o.is_returning_customer,
        )
        for o in stored
    )


def write_book(path: Path, rows: int, *, prefix: str = "RB", missing_only: bool = False) -> None:
    """A generic book of `rows` orders, written line by line."""
    from attribution.models import Click

    clicks = list(Click.objects.filter(brand__name=BRAND).values_list("click_id", flat=True)[:1000])
    with path.open("w", encoding="utf-8") as out:
        out.write("order_id,amount,currency,status,code,click_id,ordered_at\n")
        for i in range(rows):
            kind = "missing" if missing_only else category(i)
            order_id, amount, status, code, click = f"{prefix}-{i}", "100.00", "completed", "", ""
            if kind == "drifted":
                amount = "80.00"
            elif kind == "cancelled":
                status = "refunded"
            elif kind == "missing":
                code, click = (
                    ("BENCH10", "")
                    if i % 3 == 0
                    else ("", clicks[i % len(clicks)])
                    if i % 3 == 1
                    else ("", "")
                )
            elif kind == "invalid":
                amount = "$100.00"
            out.write(f"{order_id},{amount},USD,{status},{code},{click},2026-11-{1 + i % 28:02d}T10:00:00Z\n")
