"""`make bench`: the service as in production (gunicorn, DEBUG=False, PostgreSQL) under wrk load.

Prepares a bench world in the DATABASE_URL database, starts gunicorn with (2 x cores) + 1 sync
workers, and runs rounds of the three scenarios (baseline, order confirmation, cancel/update), each
a warm-up and then a fixed-duration wrk run at fixed concurrency from a separate process on
loopback. Prints the medians of the rounds, the ratio of order-confirmation throughput to the
baseline's last, and writes bench/results/bench-<time>.json.
"""

import argparse
import json
import os
import platform
import secrets
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PY = sys.executable


def database_url() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/attribution_bench")
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


def prepare_world(env: dict) -> dict:
    """Brand, property, creators, clicks, a code, a key and orders to cancel/update (idempotent)."""
    subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    # As a deployment does: WhiteNoise serves the collected files (and warns on every start without).
    subprocess.run([PY, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.utils import timezone

    from attribution.models import Click, Commission, Order
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
        for n in range(2000)
    )
    DeveloperKey.objects.filter(brand=brand).update(revoked=True)
    _, key = DeveloperKey.objects.create_key(brand=brand, name="bench")

    run = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    ids = [f"CHG-{run}-{n}" for n in range(20000)]
    orders = Order.objects.bulk_create(
        Order(
            brand=brand, order_id=i, amount=Decimal("100"), currency="USD", outcome="tracked", received_at=now
        )
        for i in ids
    )
    Commission.objects.bulk_create(
        Commission(
            brand=brand,
            order=o,
            creator=creators[n % 20],
            order_amount=Decimal("100"),
            amount=Decimal("10.00"),
            currency="USD",
            rate_percent=Decimal("10"),
            created_at=now,
            updated_at=now,
        )
        for n, o in enumerate(orders)
    )
    from django.db import connection

    with connection.cursor() as cursor:  # as autovacuum would have by the time traffic arrives
        cursor.execute("ANALYZE")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / ".world.txt").write_text(
        "\n".join([prop.host, "BENCH10", *[c.click_id for c in clicks]]) + "\n"
    )
    (RESULTS / ".changes.txt").write_text("\n".join([key, *ids]) + "\n")
    return {"run": run}


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    sys.exit(f"gunicorn did not start on port {port}; see bench/results/gunicorn.log")


def wrk(script: str, port: int, *, duration: int, connections: int, env: dict) -> dict:
    out = subprocess.run(
        [
            "wrk",
            "-t",
            "1",
            "-c",
            str(connections),
            "-d",
            f"{duration}s",
            "-s",
            f"bench/{script}",
            f"http://127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next((ln for ln in out.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if line is None:
        sys.exit(f"wrk printed no result:\n{out}")
    data = json.loads(line.removeprefix("BENCH_JSON "))
    data["rps"] = data["requests"] / (data["duration_us"] / 1e6)
    data["errors"] = data["socket_errors"] + data["server_errors"]
    return data


SCENARIOS = [
    ("baseline", "baseline.lua"),
    ("order_confirmation", "mixed_orders.lua"),
    ("cancel_update", "changes.lua"),
]


def ratios(measured: dict) -> dict:
    """The headline figures of one round: throughput and p99 against the same round's baseline."""
    base = measured["baseline"]
    return {
        "order_confirmation": measured["order_confirmation"]["rps"] / base["rps"],
        "cancel_update": measured["cancel_update"]["rps"] / base["rps"],
        "order_p99": measured["order_confirmation"]["p99_us"] / max(base["p99_us"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of all three scenarios")
    parser.add_argument("--duration", type=int, default=10, help="seconds measured per scenario and round")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of warm-up per scenario and round")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--port", type=int, default=8799)
    args = parser.parse_args()

    url = database_url()
    ensure_database(url)
    # Sync workers wait on the database for part of each request (commits), so the usual
    # (2 x cores) + 1 keeps every core busy; the baseline gets the same workers.
    workers = 2 * (os.cpu_count() or 1) + 1
    env = {
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
    world = prepare_world(env)
    env["BENCH_RUN"] = world["run"]
    env["BENCH_WORLD"] = str(RESULTS / ".world.txt")
    env["BENCH_CHANGES"] = str(RESULTS / ".changes.txt")

    log = open(RESULTS / "gunicorn.log", "w")
    server = subprocess.Popen(
        [
            PY,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--no-control-socket",
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{args.port}",
            "--access-logfile",
            "-",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    rounds = []
    try:
        wait_for_port(args.port)
        # The VM's speed drifts by up to 2x within minutes, so the scenarios take turns: each round
        # measures the baseline and the other two back to back, and the ratios are taken per round.
        for number in range(1, args.rounds + 1):
            measured = {}
            for name, script in SCENARIOS:
                env["BENCH_RUN"] = f"{world['run']}r{number}w"  # fresh order ids in every run
                wrk(script, args.port, duration=args.warmup, connections=args.connections, env=env)
                env["BENCH_RUN"] = f"{world['run']}r{number}"
                measured[name] = wrk(
                    script, args.port, duration=args.duration, connections=args.connections, env=env
                )
            rounds.append({"results": measured, "ratios": ratios(measured)})
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()

    results = {
        name: {
            "rps": median(r["results"][name]["rps"] for r in rounds),
            "p50_us": median(r["results"][name]["p50_us"] for r in rounds),
            "p95_us": median(r["results"][name]["p95_us"] for r in rounds),
            "p99_us": median(r["results"][name]["p99_us"] for r in rounds),
            "errors": sum(r["results"][name]["errors"] for r in rounds),
        }
        for name, _ in SCENARIOS
    }
    headline = {key: median(r["ratios"][key] for r in rounds) for key in rounds[0]["ratios"]}
    print(
        f"\nmachine: {platform.node()} · {os.cpu_count()} cores · gunicorn {workers} sync workers · "
        f"wrk 1 thread, {args.connections} connections · {args.rounds} rounds of {args.duration}s per "
        f"scenario after {args.warmup}s warm-up; medians of the rounds\n"
    )
    print(f"{'scenario':<20} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for name, r in results.items():
        print(
            f"{name:<20} {r['rps']:>9.0f} {r['p50_us'] / 1000:>8.2f} {r['p95_us'] / 1000:>8.2f} "
            f"{r['p99_us'] / 1000:>8.2f} {r['errors']:>7}"
        )
    print(
        "\nper round: "
        + "; ".join(
            f"orders {r['ratios']['order_confirmation']:.2f}, p99 {r['ratios']['order_p99']:.2f}, "
            f"cancel/update {r['ratios']['cancel_update']:.2f}"
            for r in rounds
        )
    )
    print(f"\ncancel/update throughput / baseline: {headline['cancel_update']:.2f} (target >= 0.50)")
    print(f"order confirmation p99 / baseline p99: {headline['order_p99']:.2f} (target <= 3)")
    print(f"order confirmation throughput / baseline: {headline['order_confirmation']:.2f} (target >= 0.60)")

    document = {
        "taken_at": datetime.now(UTC).isoformat(),
        "machine": {"node": platform.node(), "cores": os.cpu_count(), "python": platform.python_version()},
        "settings": {
            "workers": workers,
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "rounds": args.rounds,
        },
        "results": results,
        "ratios": headline,
        "rounds": rounds,
    }
    out = RESULTS / f"bench-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(document, indent=2))
    print(f"results written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
