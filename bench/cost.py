"""`make bench-cost`: instructions per request, a cost figure that does not drift with the machine.

Each service (the project, the Django floor, the plain-WSGI floor) is loaded in one Python process run
under `valgrind --tool=callgrind`, and its WSGI application is called directly with environs built
from the bench traffic (bench/traffic.py: the requests the wrk scripts send, fresh order ids every
run). Per scenario the process sends a warm-up, zeroes callgrind's counters, sends the measured
requests and dumps the counters, so start-up and first-request costs are left out by construction;
instructions per request are the dump's total divided by the requests sent. Instrumentation starts
only after start-up (`--instr-atstart=no`), which keeps the whole step to a minute or two.

Counted: the client process only (Django, DRF, the project, psycopg, libpq). Not counted: PostgreSQL's
work for the same requests, the kernel, and gunicorn's own per-request work (the harness stands in for
the server). The dumps stay in bench/results/callgrind/ for `callgrind_annotate`.

The zero/dump requests are valgrind's client requests, through bench/callgrind.py's tiny library.
"""

import argparse
import ctypes
import importlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime

import psycopg

from bench import callgrind, traffic
from bench.world import PY, RESULTS, ROOT, bench_env, database_url, prepare_world

# Which scenarios each service answers, and its WSGI application.
TARGETS = {
    "project": ("config.wsgi", ["baseline", "order_confirmation", "cancel_update", "platform_delivery"]),
    "django_floor": ("bench.floor.wsgi", ["order_confirmation", "cancel_update"]),
    "minimal_floor": ("bench.floor.minimal.wsgi", ["order_confirmation", "cancel_update"]),
    "plain_floor": ("bench.floor.plain", ["order_confirmation", "cancel_update"]),
    # issue 56: the project again, its bench brand priced by a commission plan of 50 rules (docs/plans.md);
    # its order confirmations cost at most 5 % more than the project's with the default plan.
    "project_plan50": ("config.wsgi", ["order_confirmation"]),
}
PLAN_RULES = 50
DEFAULT_REQUESTS = {
    "baseline": 300,
    "order_confirmation": 300,
    "cancel_update": 200,
    "platform_delivery": 200,
}
WARMUP = 30


# --- inside valgrind ----------------------------------------------------------------------------


def environ_of(request: traffic.Request) -> dict:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": request.path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8810",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "HTTP_HOST": "127.0.0.1:8810",
        "CONTENT_LENGTH": str(len(request.body)),
        **request.headers,
        "wsgi.input": io.BytesIO(request.body),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def requests_for(scenario: str, world, run: str, count: int, cancel_from: int) -> list:
    if scenario == "baseline":
        return traffic.baseline(count)
    if scenario == "order_confirmation":
        return traffic.orders(world, run, count)
    if scenario == "platform_delivery":
        return traffic.deliveries(traffic.Shop.read(), run, count)
    return traffic.changes(world, run, count, cancel_from=cancel_from)


# The tables an event writes; their row counters tell what a request stored, service by service.
TABLES = [
    "attribution_order",
    "attribution_platformdelivery",
    "attribution_commission",
    "attribution_amountchange",
    "attribution_commissionstatechange",
    "health_outcomeevent",
    "bench_min_order",
    "bench_min_commission",
    "bench_min_commission_change",
    "bench_min_amount_change",
    "bench_min_outcome",
]


def _flush(target: str):
    """A call that makes the service's own database session publish its statistics now (PostgreSQL 15
    publishes them at most once a second otherwise); the catalog read makes sure it has some to publish."""
    sql = "SELECT pg_stat_force_next_flush(), (SELECT count(*) FROM pg_namespace)"
    if target == "plain_floor":
        from bench.floor import plain

        return lambda: plain.query(sql, {})

    from django.db import connection

    def flush():
        with connection.cursor() as cursor:
            cursor.execute(sql)

    return flush


def _rows_written(stats) -> dict:
    """Rows inserted and updated so far in each table an event writes (aborted inserts included; the log's partitions as the log)."""
    stats.execute("SELECT pg_stat_clear_snapshot()")
    counts: Counter = Counter()
    for table, inserted, updated in stats.execute(
        "SELECT regexp_replace(relname, '^(health_outcomeevent)_(p\\d{4}_\\d{2}|default)$', '\\1'), "
        "n_tup_ins, n_tup_upd FROM pg_stat_user_tables"
    ):
        if table in TABLES:
            counts[f"{table} inserted"] += inserted
            counts[f"{table} updated"] += updated
    return dict(counts)


def worker(args) -> None:
    """Runs inside valgrind: load one service, then warm up, zero, measure and dump per scenario."""
    module, scenarios = TARGETS[args.worker]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    application = importlib.import_module(module).application
    if args.worker == "project_plan50":
        _bench_plan(rules=PLAN_RULES)
    world = traffic.World.read()
    cancel_from = args.cancel_from
    plan = []
    for scenario in scenarios:
        count = args.requests[scenario]
        warm = requests_for(scenario, world, f"{args.run}w", args.warmup, cancel_from)
        cancel_from += traffic.cancels_in(warm)
        measured = requests_for(scenario, world, args.run, count, cancel_from)
        cancel_from += traffic.cancels_in(measured)
        plan.append((scenario, [environ_of(r) for r in warm], [environ_of(r) for r in measured]))

    ctl = ctypes.CDLL(args.ctl)
    statuses: list = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    def send(environ):
        result = application(environ, start_response)
        body = b"".join(result)
        if hasattr(result, "close"):
            result.close()
        return body

    flush = _flush(args.worker)
    stats = psycopg.connect(os.environ["DATABASE_URL"])  # reads the statistics, outside the counted requests
    report = {}
    ctl.bench_start()
    for scenario, warm, measured in plan:
        for environ in warm:
            send(environ)
        statuses.clear()
        flush()
        before = _rows_written(stats)
        ctl.bench_zero()
        bodies = [send(environ) for environ in measured]
        ctl.bench_dump(scenario.encode())
        flush()
        after = _rows_written(stats)
        outcomes = Counter(json.loads(body).get("outcome", "?") for body in bodies)
        n = len(measured)
        report[scenario] = {
            "requests": n,
            "statuses": dict(Counter(s.split()[0] for s in statuses)),
            "outcomes": dict(sorted(outcomes.items())),
            "rows_per_request": {
                key: (after[key] - before.get(key, 0)) / n
                for key in sorted(after)
                if after[key] != before.get(key, 0)
            },
        }
    if args.worker == "project_plan50":
        _bench_plan(rules=0)
    print("COST_JSON " + json.dumps({"scenarios": report, "cancel_to": cancel_from}), flush=True)


def _bench_plan(*, rules: int) -> None:
    """The bench brand's plan of `rules` rules in front of its 10 %; 0 removes the bench's versions again."""
    from attribution.plans import versions
    from brands.models import Brand, PlanVersion

    brand = Brand.objects.get(name="Bench brand")
    PlanVersion.objects.filter(brand=brand, created_by__in=("bench", "rates")).delete()  # the bench's own
    if rules:
        document = {
            "currency": "USD",
            "default": {"percent": "10"},
            # Half line rules on SKUs, half order-level rules no bench order meets: every order is judged
            # against all of them before the default takes it.
            "rules": [
                {"name": f"Rule {n}", "when": {"skus": [f"BENCH-SKU-{n}"]}, "percent": "12"}
                if n % 2
                else {"name": f"Rule {n}", "when": {"order_amount_at_least": "1000000"}, "percent": "12"}
                for n in range(rules)
            ],
            "effective_from": "2000-01-01T00:00:00Z",
        }
        versions.save(brand=brand, document=document, at=datetime.now(UTC), created_by="bench")
    Brand.objects.get(pk=brand.pk).save()  # forgets the brand's cached resolution (brands.signals)


# --- the driver ---------------------------------------------------------------------------------


def measure(
    env: dict, *, run: str, cancel_from: int, requests: dict, warmup: int = WARMUP, targets=()
) -> tuple[dict, int]:
    """Instructions per request of every target (or those named) and scenario, and the next unused id of
    the cancel pool (`cancel_from`: the first one this step may use)."""
    if shutil.which("valgrind") is None:
        sys.exit("make bench-cost needs valgrind (apt-get install valgrind).")
    ctl = callgrind.ctl_library()
    results: dict = {}
    for target, (_, scenarios) in TARGETS.items():
        if targets and target not in targets:
            continue
        prefix = callgrind.CALLGRIND / f"{target}.out"
        for old in callgrind.CALLGRIND.glob(prefix.name + "*"):
            old.unlink()
        started = time.monotonic()
        with open(callgrind.CALLGRIND / f"{target}.log", "w") as log:
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--instr-atstart=no",
                    f"--callgrind-out-file={prefix}",
                    PY,
                    "-m",
                    "bench.cost",
                    "--worker",
                    target,
                    "--run",
                    f"{run}c{target}",
                    "--cancel-from",
                    str(cancel_from),
                    "--warmup",
                    str(warmup),
                    "--ctl",
                    str(ctl),
                    *(f"--{name.replace('_', '-')}={count}" for name, count in requests.items()),
                ],
                cwd=ROOT,
                env={**env, "PYTHONHASHSEED": "0", "DJANGO_SETTINGS_MODULE": "config.settings"},
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("COST_JSON ")), None)
        if done.returncode != 0 or line is None:
            sys.exit(
                f"the cost harness failed for {target}; see {(callgrind.CALLGRIND / f'{target}.log').relative_to(ROOT)}"
            )
        report = json.loads(line.removeprefix("COST_JSON "))
        cancel_from = report["cancel_to"]
        totals = callgrind.dump_totals(prefix)
        for scenario in scenarios:
            entry = report["scenarios"][scenario]
            entry["instructions"] = totals[scenario]
            entry["per_request"] = totals[scenario] / entry["requests"]
            results.setdefault(target, {})[scenario] = entry
        results[target]["seconds"] = round(time.monotonic() - started, 1)
    return results, cancel_from


def ratios(cost: dict) -> dict:
    project, floor, minimal = cost["project"], cost["django_floor"], cost["minimal_floor"]
    return {
        "order_confirmation_to_minimal": project["order_confirmation"]["per_request"]
        / minimal["order_confirmation"]["per_request"],
        "order_confirmation": project["order_confirmation"]["per_request"]
        / floor["order_confirmation"]["per_request"],
        "cancel_update": project["cancel_update"]["per_request"] / floor["cancel_update"]["per_request"],
        # A signed platform delivery against an order confirmation of the project itself: at most 1.5.
        "platform_delivery_to_order": project["platform_delivery"]["per_request"]
        / project["order_confirmation"]["per_request"],
        # A plan of 50 rules against the default plan (issue 56): at most 1.05.
        "plan50_to_default": cost["project_plan50"]["order_confirmation"]["per_request"]
        / project["order_confirmation"]["per_request"],
    }


def print_cost(cost: dict) -> None:
    print("\ninstructions per request (callgrind, client process only; PostgreSQL's work not included)")
    print(
        f"{'scenario':<20} {'project':>11} {'Django floor':>13} {'minimal floor':>14} {'plain floor':>12} "
        f"{'project/Django':>15}"
    )
    base = cost["project"]["baseline"]["per_request"]
    print(f"{'baseline':<20} {base:>11,.0f}")
    for scenario in ("order_confirmation", "cancel_update"):
        p, d, m, w = (
            cost[t][scenario]["per_request"]
            for t in ("project", "django_floor", "minimal_floor", "plain_floor")
        )
        print(f"{scenario:<20} {p:>11,.0f} {d:>13,.0f} {m:>14,.0f} {w:>12,.0f} {p / d:>15.2f}")
    delivery, order = (cost["project"][s]["per_request"] for s in ("platform_delivery", "order_confirmation"))
    print(
        f"{'platform_delivery':<20} {delivery:>11,.0f}   ({delivery / order:.2f} × an order confirmation; target ≤ 1.5)"
    )
    plan50 = cost["project_plan50"]["order_confirmation"]["per_request"]
    print(
        f"{'plan of 50 rules':<20} {plan50:>11,.0f}   ({plan50 / order:.3f} × the default plan; target ≤ 1.05)"
    )
    print("\noutcomes and rows written per request (an insert failing on a unique key counts)")
    for scenario in DEFAULT_REQUESTS:
        for target in TARGETS:
            entry = cost[target].get(scenario)
            if entry is not None:
                rows = ", ".join(
                    f"{name.removeprefix('attribution_').removeprefix('health_')} {count:.2f}"
                    for name, count in entry["rows_per_request"].items()
                )
                print(f"  {scenario} {target}: {entry['outcomes']}; {rows or 'no rows'}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", choices=TARGETS, help=argparse.SUPPRESS)
    parser.add_argument("--ctl", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--cancel-from", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--warmup", type=int, default=WARMUP, help="requests per scenario before counting")
    parser.add_argument(
        "--project-only", action="store_true", help="count the project alone (the floors take as long again)"
    )
    for scenario, count in DEFAULT_REQUESTS.items():
        parser.add_argument(
            f"--{scenario.replace('_', '-')}",
            type=int,
            default=count,
            metavar="N",
            help=f"requests counted for {scenario} (default {count})",
        )
    args = parser.parse_args()
    args.requests = {s: getattr(args, s) for s in DEFAULT_REQUESTS}
    if args.worker:
        worker(args)
        return

    env = bench_env(database_url())
    cancels = len(TARGETS) * (args.warmup + args.requests["cancel_update"])
    world = prepare_world(env, cancels=cancels)
    started = time.monotonic()
    targets = ("project", "project_plan50") if args.project_only else ()
    cost, _ = measure(
        env, run=world["run"], cancel_from=0, requests=args.requests, warmup=args.warmup, targets=targets
    )
    if args.project_only:
        for scenario in DEFAULT_REQUESTS:
            print(f"{scenario:<20} {cost['project'][scenario]['per_request']:>11,.0f}")
        plan50 = cost["project_plan50"]["order_confirmation"]["per_request"]
        default = cost["project"]["order_confirmation"]["per_request"]
        print(f"{'plan of 50 rules':<20} {plan50:>11,.0f}   ({plan50 / default:.3f} × the default plan)")
        return
    print_cost(cost)
    document = {
        "taken_at": datetime.now(UTC).isoformat(),
        "machine": {"node": platform.node(), "cores": os.cpu_count(), "python": platform.python_version()},
        "seconds": round(time.monotonic() - started, 1),
        "cost": cost,
        "ratios": ratios(cost),
    }
    out = RESULTS / f"cost-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(document, indent=2))
    print(f"results written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
