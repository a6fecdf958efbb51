"""CSV export of the events list, produced row by row so a large export never sits in memory."""

import json
from collections.abc import Iterable, Iterator

from config.lib.csvfiles import safe_cell, stream

from .overview import info_of

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
]


def _line(row: dict) -> list:
    info = info_of(row["outcome"])
    return [
        safe_cell(value)
        for value in (
            row["received_at"].isoformat(),
            row["endpoint"],
            row["order_id"],
            row["outcome"],
            info.label if info else "",
            row["http_status"],
            "test" if row["is_test"] else "live",
            row["id"],
            row["request_id"],
            json.dumps(row["warnings"], ensure_ascii=False) if row["warnings"] else "",
        )
    ]


def csv_lines(rows: Iterable[dict]) -> Iterator[str]:
    return stream(HEADER, (_line(row) for row in rows))
