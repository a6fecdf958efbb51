"""The bench world shared by `make bench` (bench/run.py) and `make bench-cost` (bench/cost.py).

A bench brand with a property, 20 creators, 50,000 fresh clicks, a code and a developer key, plus two
pools of tracked orders with pending commissions: one that cancels use up (each cancel takes the next
order, so every cancel really cancels) and one that updates pick from at random (never cancelled, so
every update really updates); the minimal-schema floor's tables get copies of both pools. A second brand
sells on Shopify: its shop is connected with a signing secret, with its own clicks and code, for the
platform deliveries. Written to bench/results/.world.txt,
.changes.txt, .cancels.txt and .platform.txt for the wrk scripts and the in-process harness.
"""

import os
import secrets
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PY = sys.executable
WORLD = RESULTS / ".world.txt"
CHANGES = RESULTS / ".changes.txt"
CANCELS = RESULTS / ".cancels.txt"
PLATFORM = RESULTS / ".platform.txt"
BENCH_SHOP = "bench-shop.myshopify.com"
UPDATE_POOL = 20_000
# Enough fresh clicks that the traffic's click orders (a fifth of the mix, picked at random) rarely use one
# click twice within an hour, as shoppers do: with 2,000 every click brought more than five orders an hour
# from the second round on, so the click_reuse review rule held them all and the project wrote holds the
# floors never write (docs/performance.md, "The MultiXacts that came back").
CLICKS = 50_000
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/attribution_bench"


def database_url() -> str:
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("make bench measures the production setup: set DATABASE_URL to a PostgreSQL database.")
    return url


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1].split("?")[0]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def bench_env(url: str) -> dict:
    """The environment of every server and harness process: production settings, throttles off."""
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "False",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "False",
        "BENCHMARK": "True",
        # The benchmark measures the service, not its abuse limits.
        "THROTTLE_ORDER_CONFIRMATION": "",
        "THROTTLE_DEVELOPER_KEY": "",
        "SPOOL_DIR": str(RESULTS / "spool"),
    }


def prepare_world(env: dict, *, cancels: int) -> dict:
    """Brand, property, creators, clicks, a code, a key and the two order pools (idempotent)."""
    sys.path.insert(0, str(ROOT))
    url = env["DATABASE_URL"]
    ensure_database(url)
    subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    # As a deployment does: WhiteNoise serves the collected files (and warns on every start without).
    subprocess.run([PY, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    # This process only (the servers get `env`): the pools of a 5-round run (~180,000 orders) take longer
    # than the service's statement and wait timeouts, which this preparation, not the service, would trip.
    os.environ.update({"DB_STATEMENT_TIMEOUT_MS": "0", "DB_WAIT_TIMEOUT_S": "600"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from attribution.models import Click
    from bench.floor.minimal import schema as minimal
    from brands.models import Brand, Creator, DeveloperKey, DiscountCode, Property

    brand, _ = Brand.objects.get_or_create(
        name="Bench brand", defaults={"commission_rate_percent": Decimal("10")}
    )
    prop, _ = Property.objects.get_or_create(host="shop.bench-brand.example", defaults={"brand": brand})
    creators = [Creator.objects.get_or_create(brand=brand, name=f"Bench creator {n}")[0] for n in range(20)]
    DiscountCode.objects.get_or_create(brand=brand, code="BENCH10", defaults={"creator": creators[0]})
    now = timezone.now()
    Click.objects.filter(brand=brand).delete()
    clicks = Click.objects.bulk_create(
        Click(brand=brand, property=prop, creator=creators[n % 20], clicked_at=now - timedelta(hours=n % 48))
        for n in range(CLICKS)
    )
    DeveloperKey.objects.filter(brand=brand).update(revoked=True)
    _, key = DeveloperKey.objects.create_key(brand=brand, name="bench")

    run = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    pools = {"U": UPDATE_POOL, "C": cancels}
    with connection.cursor() as cursor:
        for pool, size in pools.items():
            # One statement per pool: 100,000 orders and commissions take seconds, not minutes.
            cursor.execute(
                """
                WITH orders AS (
                    INSERT INTO attribution_order (brand_id, order_id, is_test, amount, currency,
                        is_returning_customer, page_host, outcome, attribution, code_sent, received_at, trace,
                        via_api, via_platform, click_sent)
                    SELECT %(brand)s, %(prefix)s || n, false, 100, 'USD', false, '', 'tracked', 'none', '',
                           %(now)s, '[]'::jsonb, true, false, ''
                    FROM generate_series(0, %(size)s - 1) AS n
                    RETURNING id
                )
                INSERT INTO attribution_commission (brand_id, order_id, creator_id, is_test, state,
                    order_amount, amount, currency, rate_percent, created_at, updated_at, attribution,
                    is_returning_customer, reporting_currency, reporting_amount, fx_rate, fx_rate_date, fx_source)
                SELECT %(brand)s, orders.id, (%(creators)s::bigint[])[1 + orders.id %% 20], false, 'pending',
                       100, 10, 'USD', 10, %(now)s, %(now)s, 'none', false,
                       'USD', 10, '1', %(now)s::date, 'same currency'
                FROM orders
                """,
                {
                    "brand": brand.id,
                    "prefix": f"CHG-{run}-{pool}",
                    "size": size,
                    "now": now,
                    "creators": [c.id for c in creators],
                },
            )
        # The minimal-schema floor's tables, with copies of this run's pools (bench/floor/minimal).
        minimal.create(cursor)
        minimal.copy_pools(cursor, f"CHG-{run}-")
        cursor.execute("ANALYZE")  # as autovacuum would have by the time traffic arrives
    RESULTS.mkdir(parents=True, exist_ok=True)
    WORLD.write_text("\n".join([prop.host, "BENCH10", *[c.click_id for c in clicks]]) + "\n")
    CHANGES.write_text("\n".join([key, *(f"CHG-{run}-U{n}" for n in range(UPDATE_POOL))]) + "\n")
    CANCELS.write_text("\n".join(f"CHG-{run}-C{n}" for n in range(cancels)) + "\n")
    _prepare_shop(now)
    return {"run": run, "cancels": cancels}


def _prepare_shop(now) -> None:
    """A brand whose Shopify shop sends its orders: connected, with 200 fresh clicks and a code."""
    from attribution.models import Click
    from brands.models import Brand, Creator, DiscountCode, PlatformConnection, Property

    brand, _ = Brand.objects.get_or_create(
        name="Bench shop brand", defaults={"commission_rate_percent": Decimal("10")}
    )
    prop, _ = Property.objects.get_or_create(host="shop.bench-shop.example", defaults={"brand": brand})
    creator, _ = Creator.objects.get_or_create(brand=brand, name="Bench shop creator")
    DiscountCode.objects.get_or_create(brand=brand, code="SHOP10", defaults={"creator": creator})
    Click.objects.filter(brand=brand).delete()
    clicks = Click.objects.bulk_create(
        Click(brand=brand, property=prop, creator=creator, clicked_at=now - timedelta(hours=n % 48))
        for n in range(200)
    )
    secret = secrets.token_urlsafe(24)
    connection = PlatformConnection.objects.filter(platform="shopify", shop_domain=BENCH_SHOP).first()
    connection = connection or PlatformConnection(platform="shopify", shop_domain=BENCH_SHOP)
    connection.brand, connection.property, connection.is_enabled = brand, prop, True
    # Sealed under this run's SECRET_KEY (bench_env makes a new one per run): no earlier secret is kept.
    connection.secret = connection.previous_secret = ""
    connection.set_secret(secret)
    connection.save()
    PLATFORM.write_text("\n".join([BENCH_SHOP, secret, "SHOP10", *[c.click_id for c in clicks]]) + "\n")
