"""Outcome-log rows for the benchmarks (`make bench-health`, `make bench-partitions`), loaded with COPY.

The rows look like the API's: mostly order confirmations with a realistic spread of outcomes, a cancel
and an update in every twenty events, a test event in fifty, the body as the log keeps it (text), and
the answer. Every month the load touches gets its partition first, as the daily task would have made it.
"""

import io
import time
from datetime import UTC, datetime, timedelta

COLUMNS = (
    "brand_id, endpoint, outcome, http_status, order_id, is_test, received_at, recorded_at, request_id, "
    "key_prefix, request_body, response_body, warnings, has_warnings, answered_outcome"
)

# One cycle of outcomes, about as a brand's log holds them: most orders direct, a fifth tracked, a few
# needing the brand's action (the 400s among them).
OUTCOMES = [
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("no_attribution", 200),
    ("tracked", 200),
    ("tracked", 200),
    ("duplicate_order", 400),
    ("invalid_order_amount", 400),
    ("click_not_found", 400),
    ("unregistered_code", 200),
    ("expired_click", 200),
]
BATCH = 200_000


def _months(start: datetime, end: datetime):
    from health.log import partitions

    month = partitions.month_start(start)
    while month <= end.date():
        yield month
        month = partitions.next_month(month)


def copy_events(*, brand_id: int, count: int, start: datetime, seconds: int, first: int = 0) -> float:
    """COPY `count` events of brand `brand_id` received between `start` and `start + seconds` in time
    order (as a log fills), their order ids numbered from `first`; the loader's rows per second."""
    from django.db import connection

    from health.log import partitions

    existing = {p.starts for p in partitions.monthly_partitions()}
    for month in _months(start, start + timedelta(seconds=seconds)):
        if partitions.partitioned() and month not in existing:
            partitions.create_month(month)
    recorded = datetime.now(UTC).isoformat()
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")  # bulk statements; the app's timeout is for requests
        raw = cursor.cursor
        for offset in range(first, first + count, BATCH):
            buffer = io.StringIO()
            write = buffer.write
            for n in range(offset, min(offset + BATCH, first + count)):
                outcome, status = OUTCOMES[n % len(OUTCOMES)]
                endpoint = "cancel" if n % 20 == 0 else "update" if n % 20 == 1 else "order_confirmation"
                at = (start + timedelta(seconds=(n - first) * seconds / count)).isoformat()
                write(
                    f"{brand_id}\t{endpoint}\t{outcome}\t{status}\tORD-{n}\t{'t' if n % 50 == 0 else 'f'}\t{at}\t"
                    f"{recorded}\t{n:032x}\t\t"
                    f'{{"orderId": "ORD-{n}", "orderAmount": 59.90, "currency": "USD", "page_url": "https://shop.example/ty"}}\t'
                    f'{{"success": {"false" if status == 400 else "true"}, "outcome": "{outcome}"}}\t[]\tf\t\n'
                )
            with raw.copy(f"COPY health_outcomeevent ({COLUMNS}) FROM STDIN") as copy:
                copy.write(buffer.getvalue())
        cursor.execute("RESET statement_timeout")
    return count / (time.perf_counter() - started)


def settle(cursor) -> None:
    """What autovacuum does to a log that filled over months, done at once after a bulk load: each partition's
    statistics, and the BRIN summaries of its page ranges. Without them PostgreSQL reads a loaded month whole
    for the alert facts' last hour: an unsummarized range always matches, and with no statistics the planner
    does not know the log is in time order (docs/performance.md). A range already summarized costs nothing."""
    cursor.execute("SELECT relid::regclass::text FROM pg_partition_tree('health_outcomeevent') WHERE isleaf")
    for (table,) in cursor.fetchall():
        cursor.execute(f"ANALYZE {table}")
    cursor.execute(
        """SELECT brin_summarize_new_values(i.indexrelid) FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE a.amname = 'brin'
          AND i.indrelid IN (SELECT relid FROM pg_partition_tree('health_outcomeevent') WHERE isleaf)"""
    )
