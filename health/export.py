"""CSV export of the events list, produced row by row so a large export never sits in memory."""

import csv
import json
from collections.abc import Iterable, Iterator

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
# A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


class Echo:
    """A file-like object whose write returns the line, for csv.writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def first_line(writer, header: list[str]) -> str:
    """The header row behind a byte order mark, which tells Excel (where marketing teams open these
    files) that they are UTF-8: without it "Bestellung-Müller" reads "Bestellung-MÃ¼ller"."""
    return "\ufeff" + writer.writerow(header)


def csv_lines(rows: Iterable[dict]) -> Iterator[str]:
    writer = csv.writer(Echo())
    yield first_line(writer, HEADER)
    for row in rows:
        info = info_of(row["outcome"])
        yield writer.writerow(
            [
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
        )
