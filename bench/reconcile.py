"""`make bench-reconcile`: the reconciliation of a brand's order book on PostgreSQL (docs/reconciliation.md).

Builds a bench brand whose received orders (with pending commissions) cover order ids RB-0 .. RB-199999,
beside 2,000,000 orders of another brand as a shared table holds them (once; skipped when already there), then, each in a process of its own so that one run's memory
does not count in the next:

- reconciles a generic book of 100,000 rows, the categories mixed as a real book mixes them (78 % matched,
  8 % drifted, 4 % cancelled in the book, 8 % missing by code, click or neither, 2 % unreadable): the
  time of runs.reconcile (the API's work less the HTTP), its queries, and the run's counts;
- reconciles a book of 10,000 missing orders (fresh ids each time) and applies it: the time of
  applying.apply for the 10,000 orders, each through the order confirmation's decision and writer;
- reconciles books of 10,000, 50,000, 100,000 and 200,000 rows under tracemalloc: the peak of Python's
  allocations, and the process's peak RSS, which stay flat as the file grows (the rows stream);
- refuses crafted books of 1 to 50 MB, a line of commas and a wide header, memory flat (reconcile_wide.py).

Wall-clock figures are noisy on a shared machine: run it twice and read the better. Targets:
100,000 rows reconciled in at most 10 s, 10,000 missing orders applied in at most 30 s, memory flat.
"""

import argparse
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10_000, 50_000, 100_000, 200_000)
RECONCILE_TARGET_S, APPLY_TARGET_S = 10.0, 30.0
SERVICE_WAIT = os.environ.get("DB_WAIT_TIMEOUT_S")  # the measured processes keep the service's bound


def setup_django(*, loading: bool = False) -> None:
    """Django on PostgreSQL with production settings; `loading` lifts the client's wait bound for the one-off
    bulk loads (the measured runs keep the service's own)."""
    url = os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/attribution_bench")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit(
            "make bench-reconcile measures the production setup: set DATABASE_URL to a PostgreSQL database."
        )
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # Production settings: with DEBUG, Django would keep every statement's text (queries_log), which costs
    # time and memory the service does not spend.
    os.environ.setdefault("DEBUG", "False")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    if loading:
        os.environ["DB_WAIT_TIMEOUT_S"] = "600"
    import django

    django.setup()


# --- one measurement per process ------------------------------------------------------------------------


def measure_reconcile(rows: int, *, traced: bool) -> dict:
    """Reconcile a book of `rows`; with `traced`, under tracemalloc."""
    import tracemalloc

    from django.db import connection

    from attribution.reconciliation import runs
    from bench.reconcile_world import BRAND, write_book
    from brands.models import Brand

    brand = Brand.objects.get(name=BRAND)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "book.csv"
        write_book(path, rows)
        size = path.stat().st_size
        queries = []

        def count(execute, sql, params, many, context):
            queries.append(1)  # a count only: keeping each statement's text would cost time and memory
            return execute(sql, params, many, context)

        if traced:
            tracemalloc.start()
        with path.open("rb") as file, connection.execute_wrapper(count):
            started = time.perf_counter()
            run = runs.reconcile(brand=brand, file=file, filename=path.name)
            elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] if traced else None
        if traced:
            tracemalloc.stop()
    return {
        "rows": rows,
        "bytes": size,
        "seconds": elapsed,
        "queries": len(queries),
        "peak_python_mb": None if peak is None else peak / 1e6,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "counts": {
            name: getattr(run, name)
            for name in ("matched", "amount_mismatch", "cancelled_at_brand", "missing", "invalid")
        },
        "capture_rate": run.capture_rate,
    }


def measure_apply(rows: int) -> dict:
    from django.db.models import Count

    from attribution.models import Order
    from attribution.reconciliation import applying, runs
    from bench.reconcile_world import BRAND, write_book
    from brands.models import Brand

    brand = Brand.objects.get(name=BRAND)
    prefix = f"RA{int(time.time())}"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "missing.csv"
        write_book(path, rows, prefix=prefix, missing_only=True)
        with path.open("rb") as file:
            started = time.perf_counter()
            run = runs.reconcile(brand=brand, file=file, filename=path.name)
            reconciled = time.perf_counter() - started
    started = time.perf_counter()
    applied = applying.apply(run, seconds=3600)
    elapsed = time.perf_counter() - started
    created = Order.objects.filter(brand=brand, order_id__startswith=f"{prefix}-").count()
    return {
        "rows": rows,
        "reconcile_seconds": reconciled,
        "apply_seconds": elapsed,
        "changes": applied.changes,
        "orders_created": created,
        "outcomes": dict(
            Order.objects.filter(brand=brand, order_id__startswith=f"{prefix}-")
            .values_list("outcome")
            .annotate(n=Count("id"))
            .values_list("outcome", "n")
        ),
    }


def child(args) -> None:
    setup_django()
    if args.measure == "reconcile":
        result = measure_reconcile(args.rows, traced=args.traced)
    elif args.measure == "wide":
        from bench.reconcile_wide import measure_wide
        from bench.reconcile_world import BRAND

        result = measure_wide(BRAND, args.mb, args.shape)
    else:
        result = measure_apply(args.rows)
    print("RESULT " + json.dumps(result))


def in_child(*extra: str) -> dict:
    output = subprocess.run(
        [sys.executable, __file__, "--child", *extra],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "DB_WAIT_TIMEOUT_S"}
        | ({"DB_WAIT_TIMEOUT_S": SERVICE_WAIT} if SERVICE_WAIT else {}),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(line for line in output.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def main() -> None:
    setup_django(loading=True)
    from django.core.management import call_command

    from bench.reconcile_world import ensure_world
    from bench.world import ensure_database

    ensure_database(os.environ["DATABASE_URL"])
    call_command("migrate", "--noinput", verbosity=0)
    ensure_world()

    print("\nReconcile 100,000 rows (two runs, each in a fresh process):")
    best = None
    for attempt in (1, 2):
        r = in_child("--measure", "reconcile", "--rows", "100000")
        print(
            f"  run {attempt}: {r['seconds']:.2f} s, {r['queries']} queries, {r['bytes'] / 1e6:.1f} MB file, counts {r['counts']}"
        )
        best = r if best is None or r["seconds"] < best["seconds"] else best
    print(f"  best: {best['seconds']:.2f} s (target <= {RECONCILE_TARGET_S:g} s)")

    print("\nApply 10,000 missing orders (a fresh book each run):")
    a = in_child("--measure", "apply", "--rows", "10000")
    print(
        f"  reconciled in {a['reconcile_seconds']:.2f} s, applied in {a['apply_seconds']:.2f} s "
        f"(target <= {APPLY_TARGET_S:g} s): {a['orders_created']:,} orders created {a['outcomes']}, changes {a['changes']}"
    )

    print(
        "\nMemory as the file grows (tracemalloc: peak of Python's allocations during reconcile; peak RSS of the process):"
    )
    print(
        f"  {'rows':>8} {'file MB':>8} {'peak Python MB':>15} {'peak RSS MB':>12} {'s (traced)':>11} {'queries':>8}"
    )
    for rows in SIZES:
        m = in_child("--measure", "reconcile", "--rows", str(rows), "--traced")
        print(
            f"  {rows:>8,} {m['bytes'] / 1e6:>8.1f} {m['peak_python_mb']:>15.1f} {m['max_rss_mb']:>12.0f} "
            f"{m['seconds']:>11.1f} {m['queries']:>8}"
        )
    from bench.reconcile_wide import report

    report(in_child)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=["reconcile", "apply", "wide"])
    parser.add_argument("--mb", type=int, default=1)
    parser.add_argument("--shape", choices=["commas", "header", "quoted"], default="commas")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--traced", action="store_true")
    arguments = parser.parse_args()
    if arguments.child:
        child(arguments)
    else:
        main()
