"""`make bench-health`: the health pages, the alert facts and an order's page of a brand with 30,000,000
outcome-log rows against the same for a brand with 1,000, and one evaluation of every alert rule for
1,000 brands.

In its own PostgreSQL database (DATABASE_URL, default .../attribution_health_bench) it loads one brand's
log with 30,000,000 events spread over 90 days (--events; COPY, as the API's rows look: bench/outcome_rows.py,
printing the loader's rows per second; skipped when already there) and a second brand's with 1,000, rolls
both up, then times the overview (30 days), the first events page, the "needs your action" page, the
alerts page, an order's page and the alert rules' facts of each brand in-process (median of repeated
requests after a warm-up) and prints the ratio large/small (target <= 1.5). Then 1,000 brands get a week
of hourly history and an hour of events (a tenth of them silent for two hours, a tenth with a spike), and
the evaluation of every rule is timed.
"""

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = 1_000
DAYS = 90
REPEAT, WARMUP = 15, 3
TARGET = 1.5


def setup_django() -> None:
    url = os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/attribution_health_bench")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit(
            "make bench-health measures the production setup: set DATABASE_URL to a PostgreSQL database."
        )
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # The bulk loads and the first roll-up of millions of events take longer than a request may.
    os.environ.setdefault("DB_WAIT_TIMEOUT_S", "3600")
    os.environ.setdefault("DB_STATEMENT_TIMEOUT_MS", "3600000")
    from bench.world import ensure_database

    ensure_database(url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)


def fill(brand, count: int) -> None:
    """The brand's log up to `count` events over the last DAYS days, numbered ORD-0 onwards."""
    from django.utils import timezone

    from bench.outcome_rows import copy_events
    from health.log.models import OutcomeEvent

    have = OutcomeEvent.objects.filter(brand=brand).count()
    if have >= count:
        print(f"{brand.name}: {have:,} events already there")
        return
    started = time.perf_counter()
    rate = copy_events(
        brand_id=brand.id,
        count=count - have,
        start=timezone.now() - timedelta(days=DAYS),
        seconds=DAYS * 86400 - 3600,
        first=have,
    )
    print(
        f"{brand.name}: loaded {count - have:,} events with COPY in {time.perf_counter() - started:.1f}s "
        f"({rate:,.0f} rows/s)"
    )


def timed(small, large) -> tuple[float, float]:
    """The median times of two calls in ms, after a warm-up, taken in turns so that the machine's drift
    moves both alike."""
    for _ in range(WARMUP):
        small(), large()
    samples: tuple[list, list] = ([], [])
    for _ in range(REPEAT):
        for call, kept in ((small, samples[0]), (large, samples[1])):
            started = time.perf_counter()
            call()
            kept.append(time.perf_counter() - started)
    return statistics.median(samples[0]) * 1000, statistics.median(samples[1]) * 1000


def page(client, url: str):
    def get():
        assert client.get(url).status_code == 200, url

    return get


def brand_user_client(brand):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from brands.models import BrandMembership

    user, _ = get_user_model().objects.get_or_create(username=f"health-bench-{brand.pk}")
    BrandMembership.objects.get_or_create(brand=brand, user=user)
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(user)
    return client


def alert_facts(brand):
    """The alert rules' facts of one brand, as every evaluation reads them (health.alerts.events.facts)."""
    from django.utils import timezone

    from brands.models import Brand
    from health.alerts.events.facts import read_facts

    return lambda: read_facts(Brand.objects.filter(pk=brand.pk), {}, now=timezone.now())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=30_000_000, help="the large brand's events")
    parser.add_argument(
        "--creator-orders", type=int, default=100_000, help="the large brand's attributed orders"
    )
    parser.add_argument(
        "--only",
        choices=["creators"],
        help="time only this page, in --rounds rounds of small then large (the other pages and the alert "
        "evaluation are skipped)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="with --only: how many rounds to time")
    parser.add_argument(
        "--rebuild-creators",
        action="store_true",
        help="drop both brands' creator programs and write them again (a world made by an older bench)",
    )
    args = parser.parse_args()
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from bench.creator_world import drop_creators, fill_creators
    from bench.outcome_rows import settle
    from brands.models import Brand
    from health.log.rollup import roll_up

    large, _ = Brand.objects.get_or_create(name=f"Health bench {args.events:,}")
    small, _ = Brand.objects.get_or_create(name=f"Health bench {SMALL:,}")
    fill(large, args.events)
    fill(small, SMALL)
    # The Creators page: 1,000 creators each; the small brand's orders as many as its events.
    if args.rebuild_creators:
        drop_creators(large)
        drop_creators(small)
    fill_creators(large, orders=args.creator_orders, clicks=2 * args.creator_orders)
    fill_creators(small, orders=SMALL, clicks=2 * SMALL)
    started = time.perf_counter()
    result = roll_up(now=None)
    print(f"rolled up {result.events:,} events in {time.perf_counter() - started:.1f}s")
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
        settle(cursor)
        cursor.execute(
            "SELECT sum(pg_total_relation_size(relid)), count(*) FILTER (WHERE isleaf) "
            "FROM pg_partition_tree('health_outcomeevent')"
        )
        size, tables = cursor.fetchone()
        cursor.execute("RESET statement_timeout")
    print(
        f"outcome log: {size / 2**30:,.1f} GiB with indexes in {tables} table(s), "
        f"{size / (args.events + SMALL):,.0f} bytes per event"
    )

    # Each brand's pages as its own brand user sees them (an account manager's also list every brand).
    clients = {brand.pk: brand_user_client(brand) for brand in (small, large)}
    if args.only == "creators":
        time_creators(clients[small.pk], clients[large.pk], rounds=args.rounds)
        return

    add_incidents(large)
    add_incidents(small)
    pages = [
        ("overview, 30 days", "/health/?period=30d"),
        ("events, first page", "/health/events/"),
        ("events, needs action", "/health/events/?action=1"),
        ("alerts", "/health/alerts/"),
        ("order page", "/health/orders/ORD-501"),
        ("creators, 30 days", "/health/creators/?period=30d"),
    ]
    label_large = f"{args.events / 1e6:g}M events ms"
    print(f"\n{'page':<22} {'1k events ms':>13} {label_large:>15} {'ratio':>7}")
    worst = 0.0
    timings = [(label, page(clients[small.pk], url), page(clients[large.pk], url)) for label, url in pages]
    timings.append(("alert facts", alert_facts(small), alert_facts(large)))
    for label, call_small, call_large in timings:
        small_ms, large_ms = timed(call_small, call_large)
        ratio = large_ms / small_ms
        worst = max(worst, ratio)
        print(f"{label:<22} {small_ms:>13.1f} {large_ms:>15.1f} {ratio:>7.2f}")
    print(f"\nat {args.events:,} events / at {SMALL:,} events, worst: {worst:.2f} (target <= {TARGET})")
    staff, _ = get_user_model().objects.get_or_create(username="health-bench", defaults={"is_staff": True})
    manager = Client(SERVER_NAME="127.0.0.1")
    manager.force_login(staff)
    portfolio_ms, _ = timed(page(manager, "/health/portfolio/"), lambda: None)
    print(
        f"portfolio of every brand ({Brand.objects.count():,}), as an account manager: {portfolio_ms:.0f} ms"
    )
    bench_evaluation()


def time_creators(small_client, large_client, *, rounds: int) -> None:
    """The Creators page (30 days) alone, small then large in turns, `rounds` times: each round's medians and
    ratio, then the median of the rounds' figures, so that the noise of a shared machine shows."""
    url = "/health/creators/?period=30d"
    results = []
    print(f"\n{'creators, 30 days':<22} {'small ms':>9} {'large ms':>9} {'ratio':>7}")
    for n in range(rounds):
        small_ms, large_ms = timed(page(small_client, url), page(large_client, url))
        results.append((small_ms, large_ms, large_ms / small_ms))
        print(f"{'round ' + str(n + 1):<22} {small_ms:>9.1f} {large_ms:>9.1f} {large_ms / small_ms:>7.2f}")
    small_ms, large_ms, ratio = (statistics.median(r[i] for r in results) for i in range(3))
    spread = f"{min(r[2] for r in results):.2f}-{max(r[2] for r in results):.2f}"
    print(f"{'median of rounds':<22} {small_ms:>9.1f} {large_ms:>9.1f} {ratio:>7.2f}  (ratios {spread})")


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

    from bench.outcome_rows import settle
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
        cursor.execute("ANALYZE health_hourlyoutcomecount")
        settle(cursor)
        cursor.execute("RESET statement_timeout")
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
        result = evaluate(exclusive=False)  # the bench is the only evaluator: no lease to wait for
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
