"""`make bench-sync`: the nightly sync of a large shop against the platforms' stand-in, on PostgreSQL
(docs/performance.md, "The nightly sync").

Each measured sync runs in a process of its own (`python -m bench.sync --child ...`), as the task runner runs
it: a Shopify shop of N orders placed over the last day (5 % with the bench's code, 2 % partly refunded, 1 %
cancelled; none delivered by webhook) held by an in-process stand-in (attribution.management.demo.standin) with
its cost bucket, and a connection made by OAuth; the sync reads the whole window and records every order
through the webhooks' own service. Three figures:

- the sync of 10,000 orders: its time, the queries it asked, the most points one query asked (Shopify refuses
  a query over 1,000), the THROTTLED answers and the seconds waited on the bucket (a Plus plan: 20,000
  points, 1,000 a second; `--plan standard` for 2,000 and 100);
- its memory at 1,000 and at 10,000 orders: the peak of Python's allocations while it runs (tracemalloc, the
  stand-in's shop built before it starts), which must not grow with the orders (the pages stream);
- the live order path beside it: gunicorn serving the project on 127.0.0.1:8106 (2 sync workers) under wrk's
  mixed order confirmations (bench/mixed_orders.lua, 16 connections), alone and with a 10,000-order sync
  running beside it in turns; the p99 beside must be at most 1.10 times the p99 alone (medians of the turns).
  The sync runs as docs/operations.md has a deploy run it, on the sync's own runner at the lowest CPU weight:
  the bench puts its process in a CPU group of its own marked idle (cgroup v2 or v1 `cpu.idle`, what systemd's
  `CPUWeight=idle` makes), and says so in its report; where it cannot (no cgroup it may write), it falls back
  to `SCHED_IDLE` and nice 19, which reach only the processes of its own group, and says that instead.

Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/attribution_bench) and wrk.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import median

from bench.world import PY, RESULTS, ROOT, bench_env, database_url, prepare_world

PORT = 8106
P99_TARGET = 1.10
SIZES = (1_000, 10_000)
PLANS = {"plus": (20_000.0, 1_000.0), "standard": (2_000.0, 100.0)}


# --- one sync, in a process of its own ---------------------------------------------------------------------


CGROUP_NAME = "attribution-bench-sync"


def idle_cpu_group() -> Path | None:
    """A CPU group marked idle for the sync's process (cgroup v2, else v1's cpu controller), or None."""
    for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/cpu")):
        group = root / CGROUP_NAME
        try:
            if (
                root == Path("/sys/fs/cgroup")
                and "cpu" not in (root / "cgroup.controllers").read_text().split()
            ):
                continue
            group.mkdir(exist_ok=True)
            (group / "cpu.idle").write_text("1")
            return group
        except OSError:
            continue
    return None


def lower_cpu_class(cpu: str) -> str:
    """Put this process where the sync's runner would run (docs/operations.md, "The sync's own runner")."""
    if cpu == "idle":
        group = idle_cpu_group()
        if group is not None:
            try:
                (group / "cgroup.procs").write_text(str(os.getpid()))
                return f"idle CPU group ({group})"
            except OSError:
                pass
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    os.nice(19)
    return "SCHED_IDLE, nice 19 (no idle CPU group could be made: reaches only its own group's processes)"


def child(orders: int, *, plan: str, memory: bool, cpu: str) -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import httpx
    from django.conf import settings

    from attribution.management.demo.standin import shopify_routes
    from attribution.management.demo.standin.app import make_app
    from attribution.management.demo.standin.order_data import shopify_order
    from attribution.management.demo.standin.world import World
    from attribution.platforms.sync.runner import sync_connection
    from brands.models import Brand, Creator, DiscountCode, PlatformConnection, Property
    from config.lib import outbound

    cpu_class = lower_cpu_class(cpu) if cpu != "none" else "as the bench runs"
    run = datetime.now(UTC).strftime("%Y%m%d%H%M%S%f")
    brand, _ = Brand.objects.get_or_create(name="Sync bench brand", defaults={"commission_rate_percent": 10})
    prop, _ = Property.objects.get_or_create(host="shop.sync-bench.example", defaults={"brand": brand})
    creator, _ = Creator.objects.get_or_create(brand=brand, name="Sync bench creator")
    DiscountCode.objects.get_or_create(brand=brand, code="SYNC10", defaults={"creator": creator})
    domain = f"sync-bench-{run}.myshopify.com"
    settings.SHOPIFY_API_ORIGIN = "http://standin.bench/{shop}"
    settings.PLATFORM_PLAIN_HTTP_HOSTS = ["standin.bench"]
    world = World(origin="http://standin.bench", shopify_client_id="bench", shopify_client_secret="bench")
    size, rate = PLANS[plan]
    shop = world.add_shop(domain, timezone="UTC", bucket_size=size, bucket_available=size, restore_rate=rate)
    pair = world.issue_expiring_token(domain, ["read_orders"])  # as a shop connected by the app now holds
    now = datetime.now(UTC)
    start = now - timedelta(days=1, minutes=10)  # every order changed before the run starts
    step = timedelta(days=1) / orders
    base = int(run[-9:]) * 100_000  # fresh order ids in every run
    for n in range(orders):
        placed = start + step * n
        shop.orders.append(
            shopify_order(
                base + n,
                placed_at=placed,
                subtotal=f"{20 + n % 80}.00",
                code="SYNC10" if n % 20 == 0 else None,
                refunded="10.00" if n % 50 == 1 else "0",
                cancelled=n % 100 == 2,
                updated_at=placed + timedelta(minutes=5),
            )
        )
    connection = PlatformConnection(
        brand=brand,
        property=prop,
        platform="shopify",
        shop_domain=domain,
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        api_scopes="read_orders",
        shop_timezone="UTC",
    )
    connection.set_credential(
        pair["access_token"], expires_at=now + timedelta(hours=1), refresh_token=pair["refresh_token"]
    )
    connection.save()

    asked = {"queries": 0, "max_requested": 0, "throttled": 0, "refused_cost": 0}
    answer_orders = shopify_routes.orders.shopify_orders

    def counted(world_, shop_, variables, text):
        answer = answer_orders(world_, shop_, variables, text)
        asked["queries"] += 1
        codes = {(e.get("extensions") or {}).get("code") for e in answer.get("errors", [])}
        asked["throttled"] += "THROTTLED" in codes
        asked["refused_cost"] += "MAX_COST_EXCEEDED" in codes
        cost = (answer.get("extensions") or {}).get("cost") or {}
        asked["max_requested"] = max(asked["max_requested"], cost.get("requestedQueryCost") or 0)
        return answer

    shopify_routes.orders.shopify_orders = counted
    # Every call of the bench's sync reaches the stand-in in process, for the rest of the bench's process.
    outbound.route(httpx.WSGITransport(app=make_app(world))).__enter__()
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        time.sleep(seconds)

    if memory:
        import tracemalloc

        tracemalloc.start()
    began = time.perf_counter()
    synced = sync_connection(
        connection.pk,
        trigger="command",
        since=start - timedelta(hours=1),
        until=now,
        sleep=sleep,
        seconds=1e9,
    )
    seconds = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1] if memory else None
    if memory:
        tracemalloc.stop()
    run_row = synced.run
    run_row.refresh_from_db()

    return {
        "orders": orders,
        "plan": plan,
        "pause_ratio": settings.SYNC_PAUSE_RATIO,
        "cpu_class": cpu_class,
        "status": run_row.status,
        "errors": run_row.errors[-3:],
        "seconds": round(seconds, 2),
        "orders_per_second": round(orders / seconds, 1),
        "pages": run_row.pages,
        "orders_read": run_row.orders_read,
        "recovered": run_row.recovered,
        "followed": run_row.followed,
        **asked,
        "waits": len(waits),
        "waited_s": round(sum(waits), 2),
        "tracemalloc_peak_mb": round(peak / 2**20, 2) if peak is not None else None,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: since its exec, unlike getrusage's, which keeps the
    forking parent's), the stand-in's shop included."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run_child(env: dict, orders: int, *, plan: str = "plus", memory: bool = False) -> dict:
    command = [PY, "-m", "bench.sync", "--child", str(orders), "--plan", plan, "--cpu", "none"]
    if memory:
        command.append("--memory")
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# --- the live order path beside a sync ------------------------------------------------------------------------


def _wrk(env: dict, duration: int) -> dict:
    from bench.run import wrk

    return wrk("mixed_orders.lua", PORT, duration=duration, connections=16, env=env)


def p99_turns(env: dict, *, turns: int, duration: int, cpu: str) -> list[dict]:
    from bench.servers import wait_for_port

    log = open(RESULTS / "gunicorn-sync-bench.log", "w")
    server = subprocess.Popen(
        [PY, "-m", "gunicorn", "config.wsgi:application", "--no-control-socket", "-w", "2", "-b",
         f"127.0.0.1:{PORT}", "--access-logfile", "-", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
    )  # fmt: skip
    try:
        wait_for_port(PORT)
        time.sleep(2)
        _wrk({**env, "BENCH_RUN": "warm"}, 3)
        results = []
        for turn in range(turns):
            for beside in (False, True) if turn % 2 == 0 else (True, False):
                sync = None
                if beside:
                    command = [
                        PY,
                        "-m",
                        "bench.sync",
                        "--child",
                        "10000",
                        "--plan",
                        "plus",
                        "--cpu",
                        cpu,
                    ]
                    sync = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
                    time.sleep(4)  # its shop built and its first pages under way
                read_before = _orders_read_by_the_last_run()
                measured = _wrk({**env, "BENCH_RUN": f"sync{turn}{int(beside)}{time.time_ns()}"}, duration)
                still_running = sync is not None and sync.poll() is None
                synced = _orders_read_by_the_last_run() - read_before if beside else 0
                if sync is not None:
                    sync.terminate()
                    sync.wait()
                results.append(
                    {"turn": turn, "beside_sync": beside, "sync_ran_throughout": still_running,
                     "orders_synced_meanwhile": synced, **measured}
                )  # fmt: skip
                print(
                    f"  turn {turn} {'beside a sync' if beside else 'alone        '}: {measured['rps']:.0f} req/s, "
                    f"p99 {measured['p99_us'] / 1000:.1f} ms"
                    + (f", {synced} orders synced meanwhile" if beside else "")
                    + ("" if not beside or still_running else " (sync ended early)"),
                    flush=True,
                )
        return results
    finally:
        server.terminate()
        server.wait()
        log.close()


def _orders_read_by_the_last_run() -> int:
    """What the bench's latest sync run has read so far (it checkpoints its count after each page)."""
    from attribution.models import SyncRun

    return SyncRun.objects.order_by("-pk").values_list("orders_read", flat=True).first() or 0


def _p99_ratio(turns: list[dict]) -> float:
    """The median p99 beside a sync over the median p99 alone (each turn pair's own ratio is printed too: on a
    shared machine single turns swing both ways)."""
    alone = median(r["p99_us"] for r in turns if not r["beside_sync"])
    beside = median(r["p99_us"] for r in turns if r["beside_sync"])
    pairs = [
        round(b["p99_us"] / a["p99_us"], 2)
        for a, b in (
            (next(r for r in turns if r["turn"] == t and not r["beside_sync"]),
             next(r for r in turns if r["turn"] == t and r["beside_sync"]))
            for t in sorted({r["turn"] for r in turns})
        )
    ]  # fmt: skip
    print(f"Live order p99: {alone / 1000:.1f} ms alone, {beside / 1000:.1f} ms beside the sync", flush=True)
    print(f"  each turn's ratio: {pairs} (median {median(pairs):.2f})", flush=True)
    return round(beside / alone, 3)


def _write(report: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"sync-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--plan", choices=sorted(PLANS), default="plus")
    parser.add_argument(
        "--cpu",
        choices=("idle", "nice", "none"),
        default="idle",
        help="the sync's CPU class beside the live path: an idle CPU group (the sync runner's unit), SCHED_IDLE "
        "with nice 19, or as the bench runs",
    )
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument(
        "--p99-only", action="store_true", help="only the live path's turns (the p99 is the noisiest)"
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, plan=args.plan, memory=args.memory, cpu=args.cpu)))
        return
    url = database_url()
    env = bench_env(url)
    print("Preparing the bench world ...", flush=True)
    prepare_world(env, cancels=1000)
    from django.conf import settings

    from attribution.platforms.sync.pace import cpu_stall_us

    report = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "plan": args.plan,
        "pause_ratio": settings.SYNC_PAUSE_RATIO,
        "busy_cpu_share": settings.SYNC_BUSY_CPU_SHARE,
        "cpu_pressure_readable": cpu_stall_us() is not None,
        "cpu": args.cpu,
        "idle_cpu_group": str(idle_cpu_group()) if args.cpu == "idle" else None,
    }
    if args.p99_only:
        report["p99"] = p99_turns(env, turns=args.turns, duration=args.duration, cpu=args.cpu)
        report["p99_ratio"] = _p99_ratio(report["p99"])
        _write(report)
        return
    print("The sync of 10,000 orders ...", flush=True)
    report["sync"] = run_child(env, 10_000, plan=args.plan)
    print(f"  {json.dumps(report['sync'])}", flush=True)
    report["memory"] = []
    for orders in SIZES:
        print(f"Its memory at {orders:,} orders ...", flush=True)
        report["memory"].append(run_child(env, orders, plan=args.plan, memory=True))
        print(f"  {json.dumps(report['memory'][-1])}", flush=True)
    print(
        f"The live order path alone and beside a sync ({args.turns} turns of {args.duration} s) ...",
        flush=True,
    )
    report["p99"] = p99_turns(env, turns=args.turns, duration=args.duration, cpu=args.cpu)
    alone = median(r["p99_us"] for r in report["p99"] if not r["beside_sync"])
    beside = median(r["p99_us"] for r in report["p99"] if r["beside_sync"])
    report["p99_ratio"] = _p99_ratio(report["p99"])
    sync, (small, large) = report["sync"], report["memory"]
    report["verdict"] = {
        "within_cost_limit": sync["max_requested"] <= 1000 and sync["refused_cost"] == 0,
        "every_order_read": sync["orders_read"] == 10_000 and sync["status"] == "done",
        "memory_flat": large["tracemalloc_peak_mb"] <= small["tracemalloc_peak_mb"] * 1.5,
        "p99_within_10_percent": report["p99_ratio"] <= P99_TARGET,
    }
    path = _write(report)
    print(
        f"\n10,000 orders synced in {sync['seconds']} s ({sync['orders_per_second']} a second), {sync['queries']} "
        f"queries, at most {sync['max_requested']} points asked, {sync['throttled']} THROTTLED, "
        f"{sync['waited_s']} s waited.\nPeak of Python's allocations: {small['tracemalloc_peak_mb']} MB at "
        f"1,000 orders, {large['tracemalloc_peak_mb']} MB at 10,000.\nLive order p99: {alone / 1000:.1f} ms "
        f"alone, {beside / 1000:.1f} ms beside the sync ({report['p99_ratio']}x; target {P99_TARGET}x).\n"
        f"Verdict: {report['verdict']}\nWritten to {path.relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main()
