"""`make bench-db`: the database's share of a request, per service, for the same traffic.

`make bench-cost` counts the client process; this counts what PostgreSQL does for the same requests.
Each service (the project, the same-schema Django floor, the minimal-schema floor) is loaded in a process
of its own and sent the bench traffic one request after another (bench/traffic.py: 2,000 orders of the
mix, 1,000 cancels and updates by default, after a warm-up). Around the measured requests it reads:

- **WAL bytes**: `pg_current_wal_lsn()` before and after, each run starting right after a `CHECKPOINT`
  (so the full-page images of the pages it touches first are counted alike for every service); with `pg_walinspect` (PostgreSQL 15 contrib,
  created in the bench database when available) the records between the two are attributed to this
  database's relations (the first block each names) and to the commits of their transactions, so other
  databases' writes on a shared cluster do not count, and the bytes are split by relation, full-page
  images apart;
- **index entries and row locks**: from the same records, the B-tree leaf insertions per index and the
  heap lock records per table (a foreign-key check locks the parent row);
- **rows written**: inserted, updated and HOT-updated rows per table (`pg_stat_user_tables`);
- **buffers dirtied and time in PostgreSQL**: `pg_stat_statements` (shared_blks_dirtied,
  total_exec_time) of this database, when the cluster preloads it (`shared_preload_libraries`; a
  restart). Without it the bench says so and gives the service's backend CPU time from /proc instead.

All are per request. They do not depend on the machine's load (but for the time), so a change to the
schema is measured here first. Run it as `python -m bench.dbshare` from the repository.
"""

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from bench import traffic
from bench.cost import environ_of, requests_for
from bench.world import PY, RESULTS, ROOT, bench_env, database_url, prepare_world

TARGETS = {
    "project": "config.wsgi",
    "django_floor": "bench.floor.wsgi",
    "minimal_floor": "bench.floor.minimal.wsgi",
}
SCENARIOS = {"orders": 2000, "changes": 1000}  # requests sent per scenario
WARMUP = 50
_TICK = os.sysconf("SC_CLK_TCK")
ENABLE_PGSS = (
    "pg_stat_statements is not loaded in this cluster, so buffers dirtied and statement time are not "
    "measured (backend CPU from /proc stands in). To measure them: ALTER SYSTEM SET "
    "shared_preload_libraries = 'pg_stat_statements'; then restart PostgreSQL "
    "(pg_ctlcluster 15 main restart); the bench creates the extension in its database."
)


def extensions(stats) -> dict:
    """Which of the two extensions this database can use; creates them where the cluster allows."""
    found = {}
    loaded = "pg_stat_statements" in stats.execute("SHOW shared_preload_libraries").fetchone()[0]
    for name, usable in (("pg_stat_statements", loaded), ("pg_walinspect", True)):
        available = stats.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s", [name]).fetchone()
        if usable and available:
            try:
                stats.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
            except psycopg.Error:
                usable = False
        found[name] = bool(usable and available)
    return found


_PGSS = """
SELECT coalesce(sum(calls), 0), coalesce(sum(total_exec_time), 0), coalesce(sum(shared_blks_dirtied), 0),
       coalesce(sum(shared_blks_written), 0), coalesce(sum(wal_bytes), 0), coalesce(sum(wal_fpi), 0)
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%%pg\\_%%'
"""

# The records between two positions that touch this database, by relation (the first block a record
# names), with the commits of their transactions; partitions and indexes by their own names.
_WAL = """
WITH records AS (
    SELECT xid, resource_manager, record_type, record_length, fpi_length,
           (regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)'))[1]::oid AS db,
           (regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)'))[2]::oid AS node
    FROM pg_get_wal_records_info(%(start)s, %(end)s)
), ours AS (
    SELECT * FROM records WHERE db = (SELECT oid FROM pg_database WHERE datname = current_database())
), commits AS (
    SELECT * FROM records
    WHERE resource_manager = 'Transaction' AND xid IN (SELECT xid FROM ours WHERE xid <> '0')
)
SELECT coalesce(c.relname, 'relation ' || ours.node) AS relation, coalesce(c.relkind, '?') AS kind,
       ours.resource_manager, ours.record_type, count(*), sum(ours.record_length), sum(ours.fpi_length)
FROM ours LEFT JOIN pg_class c ON c.relfilenode = ours.node
GROUP BY 1, 2, 3, 4
UNION ALL
SELECT '(commits)', 'x', 'Transaction', record_type, count(*), sum(record_length), sum(fpi_length)
FROM commits GROUP BY record_type
"""
_ENTRY_RECORDS = {"INSERT_LEAF", "INSERT_POST", "SPLIT_L", "SPLIT_R"}


def _ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def _rows(stats) -> dict:
    stats.execute("SELECT pg_stat_clear_snapshot()")
    rows = stats.execute(
        "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
    ).fetchall()
    return {name: (ins, upd, hot) for name, ins, upd, hot in rows}


def _wal(stats, start: str, end: str) -> dict:
    """WAL of this database between two positions: totals, by relation, index entries, row locks."""
    by_relation: dict = {}
    entries: dict = {}
    locks: dict = {}
    total = fpi = 0
    for relation, kind, manager, record, count, length, fpi_length in stats.execute(
        _WAL, {"start": start, "end": end}
    ):
        length, fpi_length = int(length), int(fpi_length or 0)
        total += length
        fpi += fpi_length
        entry = by_relation.setdefault(relation, {"kind": kind, "bytes": 0, "fpi_bytes": 0, "records": 0})
        entry["bytes"] += length
        entry["fpi_bytes"] += fpi_length
        entry["records"] += count
        if manager == "Btree" and record in _ENTRY_RECORDS:
            entries[relation] = entries.get(relation, 0) + count
        if manager == "BRIN":
            entries[relation] = entries.get(relation, 0) + count
        if manager == "Heap" and record == "LOCK":
            locks[relation] = locks.get(relation, 0) + count
    return {
        "bytes": total,
        "fpi_bytes": fpi,
        "by_relation": by_relation,
        "index_entries": entries,
        "locks": locks,
    }


def worker(args) -> None:
    """Inside the service's own process: send the traffic, read what the database did for it."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    application = importlib.import_module(TARGETS[args.worker]).application
    world = traffic.World.read()
    from django.db import connection

    def send(environ):
        result = application(environ, lambda *a, **k: None)
        b"".join(result)
        if hasattr(result, "close"):
            result.close()

    def backend() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid(), pg_stat_force_next_flush()")
            return cursor.fetchone()[0]

    stats = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    found = extensions(stats)
    cancel_from = args.cancel_from
    report = {"extensions": found, "scenarios": {}}
    for scenario, count in (("order_confirmation", args.orders), ("cancel_update", args.changes)):
        warm = requests_for(scenario, world, f"{args.run}w", WARMUP, cancel_from)
        cancel_from += traffic.cancels_in(warm)
        requests = requests_for(scenario, world, args.run, count, cancel_from)
        cancel_from += traffic.cancels_in(requests)
        measured = [environ_of(r) for r in requests]
        for environ in (environ_of(r) for r in warm):
            send(environ)
        # Every run starts right after a checkpoint, so each page's first change writes its full image
        # (as the first change after every checkpoint does in service): the same start for every service.
        stats.execute("CHECKPOINT")
        pid = backend()
        rows_before = _rows(stats)
        pgss_before = stats.execute(_PGSS).fetchone() if found["pg_stat_statements"] else None
        start = stats.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        ticks = _ticks(pid)
        for environ in measured:
            send(environ)
        ticks = _ticks(pid) - ticks
        end = stats.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        backend()
        rows_after = _rows(stats)
        n = len(measured)
        entry = {
            "requests": n,
            "cluster_wal_bytes": float(
                stats.execute("SELECT %s::pg_lsn - %s::pg_lsn", [end, start]).fetchone()[0]
            )
            / n,
            "backend_cpu_ms": 1000 * ticks / _TICK / n,
            "rows": {
                table: {
                    key: (after[i] - rows_before.get(table, (0, 0, 0))[i]) / n
                    for i, key in enumerate(("inserted", "updated", "hot_updated"))
                }
                for table, after in rows_after.items()
                if after != rows_before.get(table, (0, 0, 0))
            },
        }
        if pgss_before is not None:
            after = stats.execute(_PGSS).fetchone()
            calls, exec_ms, dirtied, written, wal_bytes, wal_fpi = (
                float(a) - float(b) for a, b in zip(after, pgss_before, strict=True)
            )
            entry["statements"] = {
                "calls": calls / n,
                "exec_ms": exec_ms / n,
                "blocks_dirtied": dirtied / n,
                "blocks_written": written / n,
                "wal_bytes": wal_bytes / n,
                "wal_fpi": wal_fpi / n,
            }
        if found["pg_walinspect"]:
            wal = _wal(stats, start, end)
            entry["wal"] = {
                "bytes": wal["bytes"] / n,
                "fpi_bytes": wal["fpi_bytes"] / n,
                "index_entries": sum(wal["index_entries"].values()) / n,
                "row_locks": sum(wal["locks"].values()) / n,
                "by_relation": {
                    name: {k: (v / n if k != "kind" else v) for k, v in figures.items()}
                    for name, figures in sorted(wal["by_relation"].items(), key=lambda i: -i[1]["bytes"])
                },
                "index_entries_by_index": {k: v / n for k, v in sorted(wal["index_entries"].items())},
                "row_locks_by_table": {k: v / n for k, v in sorted(wal["locks"].items())},
            }
        report["scenarios"][scenario] = entry
    print("DBSHARE_JSON " + json.dumps({**report, "cancel_to": cancel_from}), flush=True)


def measure(env: dict, *, run: str, cancel_from: int, orders: int, changes: int) -> tuple[dict, int]:
    """Each service's database share per request; returns the figures and the next unused cancel."""
    results = {}
    for target in TARGETS:
        done = subprocess.run(
            [
                PY,
                "-m",
                "bench.dbshare",
                "--worker",
                target,
                "--run",
                f"{run}d{target}",
                "--cancel-from",
                str(cancel_from),
                "--orders",
                str(orders),
                "--changes",
                str(changes),
            ],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
            capture_output=True,
            text=True,
        )
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("DBSHARE_JSON ")), None)
        if done.returncode != 0 or line is None:
            sys.exit(f"the database-share harness failed for {target}:\n{done.stderr[-3000:]}")
        report = json.loads(line.removeprefix("DBSHARE_JSON "))
        cancel_from = report.pop("cancel_to")
        results[target] = report
    return results, cancel_from


def print_share(share: dict) -> None:
    first = next(iter(share.values()))
    print("\nthe database's share per request (sent one after another; bench/dbshare.py)")
    if not first["extensions"]["pg_stat_statements"]:
        print(f"  {ENABLE_PGSS}")
    if not first["extensions"]["pg_walinspect"]:
        print("  pg_walinspect is not available: WAL bytes are the cluster's, others' writes included.")
    names = list(share)
    for scenario in ("order_confirmation", "cancel_update"):
        print(f"\n{scenario:<28}" + "".join(f"{name:>15}" for name in names))
        figures = [share[name]["scenarios"][scenario] for name in names]
        lines = [("WAL bytes (this database)", lambda f: f.get("wal", {}).get("bytes"), ",.0f")]
        lines += [
            ("  of which full-page images", lambda f: f.get("wal", {}).get("fpi_bytes"), ",.0f"),
            ("WAL bytes (cluster)", lambda f: f["cluster_wal_bytes"], ",.0f"),
            ("index entries written", lambda f: f.get("wal", {}).get("index_entries"), ".2f"),
            ("row locks (FK checks)", lambda f: f.get("wal", {}).get("row_locks"), ".2f"),
            ("rows written", lambda f: sum(r["inserted"] + r["updated"] for r in f["rows"].values()), ".2f"),
            ("buffers dirtied", lambda f: f.get("statements", {}).get("blocks_dirtied"), ".2f"),
            ("time in statements, ms", lambda f: f.get("statements", {}).get("exec_ms"), ".3f"),
            ("backend CPU, ms", lambda f: f["backend_cpu_ms"], ".3f"),
        ]
        for label, read, spec in lines:
            values = [read(f) for f in figures]
            print(f"  {label:<26}" + "".join(f"{'-' if v is None else format(v, spec):>15}" for v in values))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", choices=TARGETS, help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--cancel-from", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--orders", type=int, default=SCENARIOS["orders"])
    parser.add_argument("--changes", type=int, default=SCENARIOS["changes"])
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    env = bench_env(database_url())
    world = prepare_world(env, cancels=len(TARGETS) * (WARMUP + args.changes))
    from django.db import connections

    connections.close_all()  # the preparation's row counts are published now, not during a measured run
    started = time.monotonic()
    share, _ = measure(env, run=world["run"], cancel_from=0, orders=args.orders, changes=args.changes)
    print_share(share)
    document = {
        "taken_at": datetime.now(UTC).isoformat(),
        "machine": {"node": platform.node(), "cores": os.cpu_count(), "python": platform.python_version()},
        "seconds": round(time.monotonic() - started, 1),
        "share": share,
    }
    out = RESULTS / f"dbshare-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(document, indent=2))
    print(f"results written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
