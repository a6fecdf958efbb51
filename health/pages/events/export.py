"""CSV export of the events list, produced row by row so a large export never sits in memory.

Times are in the reader's time zone, with their UTC offset, and the zone is named in its own column.
"""

import json
from collections.abc import Iterable, Iterator
from datetime import tzinfo

from config.lib.csvfiles import safe_cell, stream
from health.pages.outcomes import info_of

HEADER = [
    "received_at",
    "endpoint",
    "order_id",
    "outcome",
    "outcome_label",
    "http_status",
    "namespace",
    "event_id",
    "request_id",
    "warnings",
    "time_zone",
]


def _line(row: dict, zone: tzinfo) -> list:
    info = info_of(row["outcome"], row["endpoint"])
    return [
        safe_cell(value)
        for value in (
            row["received_at"].astimezone(zone).isoformat(),
            row["endpoint"],
            row["order_id"],
            row["outcome"],
            info.label if info else "",
            row["http_status"],
            "test" if row["is_test"] else "live",
            row["id"],
            row["request_id"],
            json.dumps(row["warnings"], ensure_ascii=False) if row["warnings"] else "",
            str(zone),
        )
    ]


def csv_lines(rows: Iterable[dict], *, zone: tzinfo) -> Iterator[str]:
    return stream(HEADER, (_line(row, zone) for row in rows))
