"""CSV files as the health pages and statements export them: streamed row by row, opened safely by a
spreadsheet (no formula injection) and read as UTF-8 by Excel."""

import csv
from collections.abc import Iterable, Iterator

# A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value) -> str:
    """Text someone else chose (an order id, a name), with a leading quote where a spreadsheet would run it."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


class _Echo:
    """A file-like object whose write returns the line, for csv.writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def stream(header: list[str], rows: Iterable[list]) -> Iterator[str]:
    """The lines of a CSV file, the header first, for a StreamingHttpResponse.

    The header goes behind a byte order mark, which tells Excel (where marketing teams open these files)
    that they are UTF-8: without it "Bestellung-Müller" reads "Bestellung-MÃ¼ller". Cells are written as
    given: callers pass text others chose through `safe_cell`, and numbers as numbers.
    """
    writer = csv.writer(_Echo())
    yield "\ufeff" + writer.writerow(header)
    for row in rows:
        yield writer.writerow(row)
