"""`make bench-partitions`: what the partitioned outcome log costs to keep (docs/performance.md, "Retention by
partition").

In its own PostgreSQL database (DATABASE_URL, default .../attribution_partitions) it loads one month of
events with COPY (--events, default 10,000,000, into one brand's log, as the API's rows look), reports the
loader's rows per second and the bytes per event with indexes, then times dropping that month
(health.log.partitions.drop_month: the detach, which locks the log, and the drop of the detached table,
which does not) against dropping a month of 1,000 events. Each load uses a month that
the partitioned log keeps, a year back, so nothing else is touched.
"""

import argparse
import os
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DB_WAIT_TIMEOUT_S", "3600")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    from bench.world import ensure_database

    ensure_database(url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)


def load(brand_id: int, first: date, count: int) -> float:
    """COPY `count` events received within the month starting `first`; rows per second."""
    from bench.outcome_rows import copy_events

    start = datetime.combine(first, datetime.min.time(), UTC)
    return copy_events(brand_id=brand_id, count=count, start=start, seconds=27 * 86400)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    args = parser.parse_args()
    setup(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/attribution_partitions"))
    from django.db import connection

    from brands.models import Brand
    from health.log import partitions

    brand, _ = Brand.objects.get_or_create(name="Partition bench")
    today = datetime.now(UTC).date()
    big = date(today.year - 1, today.month, 1)
    small = partitions.next_month(big)
    for first, count in ((big, args.events), (small, 1_000)):
        rate = load(brand.id, first, count)
        name = partitions.partition_name(first)
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {name}")
            cursor.execute("SELECT pg_total_relation_size(%s::regclass)", [name])
            size = cursor.fetchone()[0]
        print(
            f"{name}: loaded {count:,} events at {rate:,.0f} rows/s; {size / 2**20:,.0f} MiB, {size / count:,.0f} bytes per event"
        )
    for first in (big, small):
        month = next(p for p in partitions.monthly_partitions() if p.starts == first)
        rows = partitions.estimated_rows(month.name)
        started = time.perf_counter()
        partitions.detach_month(month)
        detached = time.perf_counter()
        partitions.drop_detached(month.name)
        dropped = time.perf_counter()
        print(
            f"{month.name} (~{rows:,} events): out of the log in {(detached - started) * 1000:.0f} ms "
            f"(the lock the API and the pages wait on), its files deleted in {(dropped - detached) * 1000:.0f} ms "
            "(a transaction of its own)"
        )


if __name__ == "__main__":
    main()
