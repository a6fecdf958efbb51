"""`make bench-health`: the health pages at 1,000,000 outcome-log rows against the same pages at 1,000,
and one evaluation of every alert rule for 1,000 brands.

Fills the outcome log of one brand with 1,000,000 events spread over 90 days (one INSERT ... SELECT
on PostgreSQL: seconds, not hours; skipped when already there), a second brand with 1,000, rolls
both up, then times the overview (30 days), the first events page, the alerts page and an order's
page of each brand in-process (median of repeated requests after a warm-up) and prints the ratio
large/small. Then 1,000 brands get a week of hourly history and an hour of events (a tenth of them
silent for two hours, a tenth with a spike), and the evaluation of every rule is timed.
"""

import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LARGE, SMALL = 1_000_000, 1_000
REPEAT, WARMUP = 15, 3

OUTCOMES = [
    "no_attribution",
    "no_attribution",
    "no_attribution",
    "no_attribution",
    "no_attribution",
    "no_attribution",
    "no_attribution",
    "tracked",
    "tracked",
    "duplicate_order",
    "invalid_order_amount",
    "click_not_found",
    "unregistered_code",
    "expired_click",
]


def setup_django() -> None:
    url = os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/attribution_bench")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit(
            "make bench-health measures the production setup: set DATABASE_URL to a PostgreSQL database."
        )
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("DB_WAIT_TIMEOUT_S", "600")  # the bulk loads take longer than a request may
    sys.argv[1:] = []
    from bench.world import ensure_database

    ensure_database(url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)


def fill(brand, count: int) -> None:
    from django.db import connection

    from health.log.models import OutcomeEvent

    have = OutcomeEvent.objects.filter(brand=brand).count()
    if have >= count:
        print(f"{brand.name}: {have:,} events already there")
        return
    started = time.perf_counter()
    outcomes = "ARRAY[" + ",".join(f"'{o}'" for o in OUTCOMES) + "]"
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")  # one bulk statement; the app's timeout is for requests
        cursor.execute(
            f"""
            INSERT INTO health_outcomeevent
                (brand_id, endpoint, outcome, http_status, order_id, is_test, received_at, recorded_at,
                 request_id, key_prefix, request_body, response_body, warnings, has_warnings, answered_outcome)
            SELECT %s::integer,
                   CASE WHEN g %% 20 = 0 THEN 'cancel' WHEN g %% 20 = 1 THEN 'update' ELSE 'order_confirmation' END,
                   ({outcomes})[1 + g %% {len(OUTCOMES)}],
                   CASE WHEN g %% {len(OUTCOMES)} IN (9, 10, 11) THEN 400 ELSE 200 END,
                   'ORD-' || g, g %% 50 = 0,
                   now() - (g %% 90) * interval '1 day' - (g %% 86400) * interval '1 second',
                   now() - interval '1 hour',
                   md5(g::text), '',
                   jsonb_build_object('orderId', 'ORD-' || g, 'orderAmount', 59.90, 'currency', 'USD')::text,
                   jsonb_build_object('success', true, 'outcome', 'no_attribution'),
                   '[]'::jsonb, false, ''
            FROM generate_series(%s::integer, %s::integer) AS g
            """,
            [brand.id, have + 1, count],
        )
        cursor.execute("RESET statement_timeout")
    print(f"{brand.name}: inserted {count - have:,} events in {time.perf_counter() - started:.1f}s")


def timed(client, url: str) -> float:
    for _ in range(WARMUP):
        assert client.get(url).status_code == 200, url
    samples = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, url
    return statistics.median(samples) * 1000


def main() -> None:
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from brands.models import Brand
    from health.log.rollup import roll_up

    large, _ = Brand.objects.get_or_create(name="Health bench 1M")
    small, _ = Brand.objects.get_or_create(name="Health bench 1k")
    fill(large, LARGE)
    fill(small, SMALL)
    started = time.perf_counter()
    result = roll_up(now=None)
    print(f"rolled up {result.events:,} events in {time.perf_counter() - started:.1f}s")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE health_outcomeevent")

    user, _ = get_user_model().objects.get_or_create(username="health-bench", defaults={"is_staff": True})
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(user)

    add_incidents(large)
    add_incidents(small)
    pages = [
        ("overview, 30 days", "/health/?brand={}&period=30d"),
        ("events, first page", "/health/events/?brand={}"),
        ("events, needs action", "/health/events/?brand={}&action=1"),
        ("alerts", "/health/alerts/?brand={}"),
        ("order page", "/health/orders/ORD-501?brand={}"),
    ]
    print(f"\n{'page':<22} {'1k events ms':>13} {'1M events ms':>13} {'ratio':>7}")
    worst = 0.0
    for label, pattern in pages:
        small_ms = timed(client, pattern.format(small.id))
        large_ms = timed(client, pattern.format(large.id))
        ratio = large_ms / small_ms
        worst = max(worst, ratio)
        print(f"{label:<22} {small_ms:>13.1f} {large_ms:>13.1f} {ratio:>7.2f}")
    print(f"\nhealth pages at 1M events / at 1k events, worst page: {worst:.2f} (target <= 2)")
    bench_evaluation()


def add_incidents(brand) -> None:
    """A resolved incident and an open one, with their notifications, as the alerts page shows them."""
    from django.utils import timezone

    from health.alerts.models import Incident, Notification

    if Incident.objects.filter(brand=brand).exists():
        return
    now = timezone.now()
    counts = {"last_order_at": now.isoformat(), "silent_minutes": 75, "usual_orders": 9.5}
    old = Incident.objects.create(
        brand=brand,
        rule="silence",
        opened_at=now - timedelta(days=3),
        resolved_at=now - timedelta(days=2),
        counts=counts,
    )
    Incident.objects.create(
        brand=brand,
        rule="new_problem",
        subject="invalid_order_amount",
        opened_at=now - timedelta(hours=2),
        counts={"outcome": "invalid_order_amount", "events_24h": 40, "events_last_hour": 3},
    )
    Notification.objects.create(incident=old, kind="opened")


BRANDS = 1_000


def fill_brands() -> list[int]:
    """1,000 brands, each with 8 days of hourly order counts and 20 events in the last hour; every tenth
    silent for two hours, every tenth (another one) with half its last hour needing action."""
    from django.db import connection

    from brands.models import Brand

    existing = list(Brand.objects.filter(name__startswith="Alert bench ").values_list("pk", flat=True))
    if len(existing) >= BRANDS:
        print(f"alert bench: {len(existing):,} brands already there")
        return existing
    started = time.perf_counter()
    Brand.objects.bulk_create([Brand(name=f"Alert bench {i:04d}") for i in range(len(existing), BRANDS)])
    ids = list(
        Brand.objects.filter(name__startswith="Alert bench ").order_by("pk").values_list("pk", flat=True)
    )
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
        # The hour of "now" is the bench's reference; history stops two hours ago for the silent tenth.
        cursor.execute(
            """
            INSERT INTO health_hourlyoutcomecount (brand_id, hour, endpoint, outcome, is_test, count, warned)
            SELECT b, date_trunc('hour', now()) - h * interval '1 hour', 'order_confirmation', o, false,
                   CASE WHEN o = 'tracked' THEN 3 ELSE 9 END, 0
            FROM unnest(%s::bigint[]) AS b, generate_series(2, 8 * 24) AS h,
                 unnest(ARRAY['tracked', 'no_attribution']) AS o
            ON CONFLICT DO NOTHING
            """,
            [ids],
        )
        cursor.execute(
            """
            INSERT INTO health_outcomeevent
                (brand_id, endpoint, outcome, http_status, order_id, is_test, received_at, recorded_at,
                 request_id, key_prefix, request_body, response_body, warnings, has_warnings, answered_outcome)
            SELECT b, 'order_confirmation',
                   CASE WHEN g %% 2 = 0 AND b %% 10 = 5
                        THEN 'invalid_order_amount' ELSE 'no_attribution' END,
                   200, 'AB-' || b || '-' || g, false,
                   now() - CASE WHEN b %% 10 = 0 THEN interval '2 hours' ELSE interval '0' END
                         - (g * 3) * interval '1 minute',
                   now() - interval '2 hours' - (g * 3) * interval '1 minute',
                   '', '', '{}', '{}'::jsonb, '[]'::jsonb, false, ''
            FROM unnest(%s::bigint[]) AS b, generate_series(1, 20) AS g
            """,
            [ids],
        )
        cursor.execute("RESET statement_timeout")
        cursor.execute("ANALYZE health_hourlyoutcomecount")
        cursor.execute("ANALYZE health_outcomeevent")
    print(f"alert bench: {BRANDS:,} brands with a week of history in {time.perf_counter() - started:.1f}s")
    return ids


def bench_evaluation() -> None:
    from health.alerts.evaluation import evaluate
    from health.alerts.models import Incident
    from health.log.rollup import roll_up

    fill_brands()
    roll_up()
    Incident.objects.filter(brand__name__startswith="Alert bench ").delete()
    samples = []
    for run in range(4):
        started = time.perf_counter()
        result = evaluate()
        samples.append(time.perf_counter() - started)
        print(
            f"evaluation {run + 1}: {result.brands:,} brands, {len(result.opened)} incidents opened, "
            f"{len(result.resolved)} resolved, {samples[-1] * 1000:.0f} ms"
        )
    print(
        f"\nevery rule for {result.brands:,} brands: first run (opens the incidents) {samples[0] * 1000:.0f} ms, "
        f"then median {statistics.median(samples[1:]) * 1000:.0f} ms (target: well under a minute)"
    )


if __name__ == "__main__":
    main()
