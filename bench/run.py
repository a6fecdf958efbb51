"""`make bench`: the service as in production (gunicorn, DEBUG=False, PostgreSQL) under wrk load, side
by side with the durable floors, then instructions per request of each (bench/cost.py).

Prepares the bench world in the DATABASE_URL database (bench/world.py) and starts three gunicorns
with the same command line but for the WSGI module (and port): the project (config.wsgi), the Django
floor (bench.floor.wsgi) and the plain-WSGI floor (bench.floor.plain), each with as many sync workers as
cores (`--workers N` for another count; production runs 2 x cores + 1). Every round runs every scenario back to back, a warm-up and then a fixed-duration wrk run at
fixed concurrency from a separate process on loopback; ratios are taken within a round. Prints the
medians of the rounds, the headline ratios project / Django floor, and writes
bench/results/bench-<time>.json with every round. Run it as `python -m bench.run` from the repository.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from statistics import median

from bench import cost, dbshare
from bench.machine import Meter
from bench.servers import SERVERS, start_servers, stop_servers
from bench.world import CANCELS, CHANGES, RESULTS, ROOT, WORLD, bench_env, database_url, prepare_world

# (server, scenario, wrk script), in the order of odd rounds; even rounds run them in reverse.
SCENARIOS = [
    ("project", "baseline", "baseline.lua"),
    ("project", "order_confirmation", "mixed_orders.lua"),
    ("django_floor", "order_confirmation", "mixed_orders.lua"),
    ("minimal_floor", "order_confirmation", "mixed_orders.lua"),
    ("plain_floor", "order_confirmation", "mixed_orders.lua"),
    ("project", "cancel_update", "changes.lua"),
    ("django_floor", "cancel_update", "changes.lua"),
    ("minimal_floor", "cancel_update", "changes.lua"),
    ("plain_floor", "cancel_update", "changes.lua"),
]
# Cancels each use up one order of the pool: enough for 3,000 cancels a second of every run (no
# service here gets near), plus the cost harness.
CANCELS_PER_SECOND = 3000
# Beyond this share of both cores taken by others in a measured run, the figures are suspect.
OTHERS_WARNING = 0.10


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


def ratios(measured: dict) -> dict:
    """One round's ratios. Headline: the project against the minimal-schema floor; then against the
    same-schema Django floor; the rest for reference."""
    project, floor, plain = measured["project"], measured["django_floor"], measured["plain_floor"]
    minimal = measured["minimal_floor"]
    base = project["baseline"]
    return {
        # the headline: project / minimal-schema floor (the same facts, the least schema)
        "orders_minimal": project["order_confirmation"]["rps"] / minimal["order_confirmation"]["rps"],
        "orders_p99_minimal": project["order_confirmation"]["p99_us"]
        / max(minimal["order_confirmation"]["p99_us"], 1),
        "cancel_update_minimal": project["cancel_update"]["rps"] / minimal["cancel_update"]["rps"],
        # the second: project / Django floor on the project's own tables
        "orders": project["order_confirmation"]["rps"] / floor["order_confirmation"]["rps"],
        "orders_p99": project["order_confirmation"]["p99_us"] / max(floor["order_confirmation"]["p99_us"], 1),
        "cancel_update": project["cancel_update"]["rps"] / floor["cancel_update"]["rps"],
        # the same comparison by CPU per request (floor / project, so that higher is better as above)
        "orders_cpu": floor["order_confirmation"]["cpu_ms"] / project["order_confirmation"]["cpu_ms"],
        "cancel_update_cpu": floor["cancel_update"]["cpu_ms"] / project["cancel_update"]["cpu_ms"],
        # reference: the Django floor against the plain-WSGI floor, everything against the ceiling
        "floor_orders_vs_plain": floor["order_confirmation"]["rps"] / plain["order_confirmation"]["rps"],
        "floor_cancel_update_vs_plain": floor["cancel_update"]["rps"] / plain["cancel_update"]["rps"],
        "orders_vs_baseline": project["order_confirmation"]["rps"] / base["rps"],
        "floor_orders_vs_baseline": floor["order_confirmation"]["rps"] / base["rps"],
        "plain_orders_vs_baseline": plain["order_confirmation"]["rps"] / base["rps"],
        "cancel_update_vs_baseline": project["cancel_update"]["rps"] / base["rps"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of all scenarios")
    parser.add_argument("--duration", type=int, default=10, help="seconds measured per scenario and round")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of warm-up per scenario and round")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--port", type=int, default=8810, help="first of four ports (project, floors)")
    parser.add_argument("--no-cost", action="store_true", help="skip the instruction counts (bench/cost.py)")
    parser.add_argument(
        "--worker-class",
        choices=["sync", "gthread"],
        default="sync",
        help="gunicorn's, the same for every server",
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="sync workers per server (default: as many as cores)"
    )
    parser.add_argument("--threads", type=int, default=4, help="per gthread worker")
    args = parser.parse_args()

    started = time.monotonic()
    env = bench_env(database_url())
    pool = args.rounds * (args.warmup + args.duration) * CANCELS_PER_SECOND + 2000
    world = prepare_world(env, cancels=pool)
    env.update(BENCH_WORLD=str(WORLD), BENCH_CHANGES=str(CHANGES), BENCH_CANCELS=str(CANCELS))
    # As many workers as cores by default: each worker's CPU per order then decides the throughput, which is
    # what the ratio to the floors should measure. Production serving runs (2 x cores) + 1 (sync workers wait
    # on the database for part of each request): `--workers 5` here. Every server gets the same workers.
    workers = args.workers or (os.cpu_count() or 1)
    serving = f"{workers} {args.worker_class} workers" + (
        f" x {args.threads} threads" if args.worker_class == "gthread" else ""
    )

    servers = start_servers(
        env, port=args.port, workers=workers, worker_class=args.worker_class, threads=args.threads
    )
    meter = Meter([server["process"].pid for server in servers.values()], env["DATABASE_URL"])
    rounds = []
    cancel_from = 0
    try:
        # The VM's speed drifts by up to 2x within minutes, so every round measures every scenario
        # back to back, and the ratios are taken per round; even rounds run them in reverse order.
        for number in range(1, args.rounds + 1):
            measured: dict = {}
            for server, scenario, script in SCENARIOS if number % 2 else SCENARIOS[::-1]:
                port = servers[server]["port"]
                run = f"{world['run']}r{number}{server}"  # fresh order ids in every run of every server
                for phase, duration in (("w", args.warmup), ("", args.duration)):
                    env["BENCH_RUN"] = run + phase
                    env["BENCH_CANCEL_FROM"] = str(cancel_from)
                    meter.start()
                    result = wrk(script, port, duration=duration, connections=args.connections, env=env)
                    result["machine"] = meter.stop()
                    # CPU per request of the service's workers and its PostgreSQL sessions (and wrk's):
                    # less sensitive than throughput to what others run at the same time.
                    result["cpu_ms"] = 1000 * result["machine"]["bench_cpu_s"] / max(result["requests"], 1)
                    cancel_from += result["cancels"]
                measured.setdefault(server, {})[scenario] = result
            multixacts = {f"{sv} {sc}": measured[sv][sc]["machine"]["multixacts"] for sv, sc, _ in SCENARIOS}
            others = max(
                r["machine"]["others"] + r["machine"]["stolen"] for s in measured.values() for r in s.values()
            )
            rounds.append(
                {
                    "results": measured,
                    "ratios": ratios(measured),
                    "others_max": others,
                    "multixacts": multixacts,
                }
            )
            print(
                f"round {number}: " + _round_line(rounds[-1]["ratios"]) + f"; others took up to {others:.0%}",
                flush=True,
            )
    finally:
        meter.close()
        stop_servers(servers)
    wrk_seconds = time.monotonic() - started

    results = {
        server: {
            scenario: {
                "rps": median(r["results"][server][scenario]["rps"] for r in rounds),
                "p50_us": median(r["results"][server][scenario]["p50_us"] for r in rounds),
                "p95_us": median(r["results"][server][scenario]["p95_us"] for r in rounds),
                "p99_us": median(r["results"][server][scenario]["p99_us"] for r in rounds),
                "errors": sum(r["results"][server][scenario]["errors"] for r in rounds),
                "cpu_ms": median(r["results"][server][scenario]["cpu_ms"] for r in rounds),
            }
            for s, scenario, _ in SCENARIOS
            if s == server
        }
        for server in SERVERS
    }
    headline = {key: median(r["ratios"][key] for r in rounds) for key in rounds[0]["ratios"]}
    print(
        f"\nmachine: {platform.node()} · {os.cpu_count()} cores · each server gunicorn {serving} · "
        f"wrk 1 thread, {args.connections} connections · {args.rounds} rounds of {args.duration}s per "
        f"scenario after {args.warmup}s warm-up; medians of the rounds\n"
    )
    print(
        f"{'scenario':<20} {'server':<14} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7} "
        f"{'CPU ms/req':>11}"
    )
    for server, scenario, _ in SCENARIOS:
        r = results[server][scenario]
        print(
            f"{scenario:<20} {server:<14} {r['rps']:>9.0f} {r['p50_us'] / 1000:>8.2f} {r['p95_us'] / 1000:>8.2f} "
            f"{r['p99_us'] / 1000:>8.2f} {r['errors']:>7} {r['cpu_ms']:>11.2f}"
        )
    exhausted = cancel_from > pool
    if exhausted:
        print(
            f"\nWARNING: {cancel_from} cancels for a pool of {pool}: later cancels found cancelled commissions."
        )
    print("\nper round: " + "; ".join(_round_line(r["ratios"]) for r in rounds))
    shares = [r["results"][sv][sc]["machine"] for r in rounds for sv, sc, _ in SCENARIOS]
    others = [m["others"] + m["stolen"] for m in shares]
    print(
        f"others' share of both cores during the measured runs (other processes, hypervisor steal): "
        f"median {median(others):.0%}, max {max(others):.0%}"
    )
    if max(others) > OTHERS_WARNING:
        print(
            f"WARNING: other processes took up to {max(others):.0%} of the machine; throughput ratios then "
            "follow what they ran beside each scenario. Trust rounds where they took little, and CPU per request."
        )
    print(
        "\nreference (medians of the rounds' ratios): Django floor / plain-WSGI floor "
        f"orders {headline['floor_orders_vs_plain']:.2f}, cancel/update {headline['floor_cancel_update_vs_plain']:.2f}; "
        f"against the constant-JSON baseline: project orders {headline['orders_vs_baseline']:.2f}, "
        f"Django floor {headline['floor_orders_vs_baseline']:.2f}, plain floor {headline['plain_orders_vs_baseline']:.2f}, "
        f"project cancel/update {headline['cancel_update_vs_baseline']:.2f}"
    )
    print(
        "CPU per request (workers, PostgreSQL sessions and wrk), Django floor / project: "
        f"orders {headline['orders_cpu']:.2f}, cancel/update {headline['cancel_update_cpu']:.2f}"
    )
    made = {key: median(r["multixacts"][key] for r in rounds) for key in rounds[0]["multixacts"]}
    print(
        "MultiXacts made per measured run (median; concurrent foreign-key checks share parent rows' locks): "
        + ", ".join(f"{key} {count}" for key, count in made.items() if "baseline" not in key)
    )
    print(
        f"\nsame schema, project / Django floor: orders {headline['orders']:.2f} (must not fall), "
        f"p99 {headline['orders_p99']:.2f}, cancel/update {headline['cancel_update']:.2f} (target >= 0.6)"
    )
    print(
        f"cancel/update throughput, project / minimal-schema floor: {headline['cancel_update_minimal']:.2f}"
    )
    print(
        f"order confirmation p99, project / minimal-schema floor: {headline['orders_p99_minimal']:.2f} "
        "(target <= 1.5)"
    )
    print(
        f"order confirmation throughput, project / minimal-schema floor: {headline['orders_minimal']:.2f} "
        "(target >= 0.75)"
    )

    document = {
        "taken_at": datetime.now(UTC).isoformat(),
        "machine": {"node": platform.node(), "cores": os.cpu_count(), "python": platform.python_version()},
        "settings": {
            "workers": workers,
            "worker_class": args.worker_class,
            "threads": args.threads if args.worker_class == "gthread" else 1,
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "rounds": args.rounds,
            "servers": {name: " ".join(server["command"]) for name, server in servers.items()},
            "cancel_pool": pool,
            "cancels_sent": cancel_from,
            "cancel_pool_exhausted": exhausted,
        },
        "results": results,
        "ratios": headline,
        "rounds": rounds,
        "wrk_seconds": round(wrk_seconds, 1),
    }
    if not args.no_cost:
        figures, cancel_from = cost.measure(
            env, run=world["run"], cancel_from=cancel_from, requests=cost.DEFAULT_REQUESTS
        )
        cost.print_cost(figures)
        document["cost"] = figures
        document["cost_ratios"] = cost.ratios(figures)
        share, cancel_from = dbshare.measure(
            env, run=world["run"], cancel_from=cancel_from, **dbshare.SCENARIOS
        )
        dbshare.print_share(share)
        document["db_share"] = share
    document["seconds"] = round(time.monotonic() - started, 1)
    out = RESULTS / f"bench-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(document, indent=2))
    print(f"\n`make bench` took {document['seconds']:.0f} s; results written to {out.relative_to(ROOT)}")


def _round_line(r: dict) -> str:
    return (
        f"orders {r['orders_minimal']:.2f}, p99 {r['orders_p99_minimal']:.2f} (project / minimal floor); "
        f"orders {r['orders']:.2f}, p99 {r['orders_p99']:.2f}, cancel/update {r['cancel_update']:.2f} "
        f"(project / Django floor)"
    )


if __name__ == "__main__":
    main()
