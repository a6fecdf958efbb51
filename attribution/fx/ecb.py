"""The European Central Bank's reference-rate files, read (docs/currencies.md, "Rates"): the whole history
(`eurofxref-hist.zip`, one CSV inside, newest day first, `N/A` where a currency had no rate, a trailing
comma on each line) or its CSV as is, and the XML files (`eurofxref-hist-90d.xml`, `eurofxref-daily.xml`).
Downloads go through the one outbound client (config.lib.outbound): a total deadline, a capped body, no redirects.

A file is untrusted input: the CSV inside a zip is read as a stream up to a cap (a zip bomb is refused), and a
rate is kept only for an ISO 4217 currency, a day not after today, and a value in RATE_RANGE; any other row is
reported in `refused` and left out, the rest of the file loads."""

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from xml.etree import ElementTree

from django.utils import timezone

from config.lib import outbound

from ..currencies import minor_units

SOURCE = "ECB"
# The rates the table can hold and the ECB has published (0.3 KWD to 2 million TRL a euro), with room both ways:
# outside, a row is refused rather than stored rounded to nothing or over the column's digits.
RATE_RANGE = (Decimal("0.0001"), Decimal("100000000"))
MAX_UNCOMPRESSED_BYTES = 32 * 1024 * 1024  # the CSV inside a zip (1.9 MB in 2026): settings pass their own
CHUNK = 64 * 1024
_XML_NS = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"


class UnreadableRates(ValueError):
    """The file is not one of the ECB's reference-rate files; nothing of it is loaded."""


@dataclass(frozen=True)
class Rate:
    day: date
    currency: str
    per_euro: Decimal


def read(
    data: bytes,
    *,
    since: date | None = None,
    today: date | None = None,
    refused: list[str] | None = None,
    max_uncompressed: int = MAX_UNCOMPRESSED_BYTES,
) -> list[Rate]:
    """Every acceptable rate in `data` (from `since`): a zip holding the history CSV, the CSV itself, or one of
    the XML files. A row refused is said in `refused` (when given) and left out; UnreadableRates when the file
    is not the ECB's or no rate is left."""
    if data[:2] == b"PK":
        data = _unzipped(data, max_uncompressed)
    today = today or timezone.now().date()
    said = [] if refused is None else refused
    head = data.lstrip()[:5]
    read_rows = _from_xml(data, since) if head.startswith(b"<") else _from_csv(data, since)
    rates = []
    for rate in read_rows:
        problem = rate if isinstance(rate, str) else _problem(rate, today)
        if problem:
            said.append(problem)
        else:
            rates.append(rate)
    if not rates:
        raise UnreadableRates("no rate in the file" + (f": {said[0]}" if said else ""))
    return rates


def _unzipped(data: bytes, limit: int) -> bytes:
    """The zip's CSV, read as a stream and no further than `limit` bytes (whatever its header declares)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = [i for i in archive.infolist() if i.filename.lower().endswith(".csv")]
            if not names:
                raise UnreadableRates("the zip holds no CSV file")
            if names[0].file_size > limit:
                raise UnreadableRates(f"the zip's CSV is over the {limit:,} bytes read")
            out = bytearray()
            with archive.open(names[0]) as member:
                while chunk := member.read(CHUNK):
                    out += chunk
                    if len(out) > limit:
                        raise UnreadableRates(f"the zip's CSV is over the {limit:,} bytes read")
            return bytes(out)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError) as error:
        raise UnreadableRates(f"not a readable zip: {error}") from error


def _problem(rate: "Rate", today: date) -> str | None:
    if not (rate.currency.isascii() and rate.currency.isupper() and minor_units(rate.currency) is not None):
        return f"{rate.currency[:10]!r} on {rate.day}: not an ISO 4217 currency code"
    if rate.day > today:
        return f"{rate.currency} on {rate.day}: a day after today"
    low, high = RATE_RANGE
    if not low <= rate.per_euro <= high:
        return f"{rate.currency} on {rate.day}: {rate.per_euro} is outside {low}-{high} a euro"
    return None


def _from_csv(data: bytes, since: date | None) -> Iterator["Rate | str"]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableRates("the CSV is not UTF-8") from error
    rows = csv.reader(io.StringIO(text))
    header = [cell.strip() for cell in next(rows, [])]
    if not header or header[0] != "Date":
        raise UnreadableRates("the CSV does not start with a Date column")
    for row in rows:
        if not row or not row[0].strip():
            continue
        try:
            day = _day(row[0])
        except UnreadableRates as error:
            yield str(error)
            continue
        if since is not None and day < since:
            continue
        for currency, cell in zip(header[1:], row[1:], strict=False):
            if currency and cell.strip() not in ("", "N/A"):
                yield _rate_or_problem(cell, currency, day)


def _from_xml(data: bytes, since: date | None) -> Iterator["Rate | str"]:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise UnreadableRates(f"not readable XML: {error}") from error
    for day_cube in root.iter(f"{_XML_NS}Cube"):
        if "time" not in day_cube.attrib:
            continue
        try:
            day = _day(day_cube.attrib["time"])
        except UnreadableRates as error:
            yield str(error)
            continue
        if since is not None and day < since:
            continue
        for cube in day_cube:
            currency = cube.attrib.get("currency", "")
            if currency:
                yield _rate_or_problem(cube.attrib.get("rate", ""), currency, day)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as error:
        raise UnreadableRates(f"{text.strip()[:20]!r} is not a date (YYYY-MM-DD)") from error


def _rate_or_problem(text: str, currency: str, day: date) -> "Rate | str":
    """The cell's rate, or why it is none (a sentence for `refused`)."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return f"{currency[:10]} on {day}: {text.strip()[:20]!r} is not a number"
    if not value.is_finite() or value <= 0 or len(currency) != 3 or not currency.isalpha():
        return f"{currency[:10]} on {day}: {text.strip()[:20]!r} is not a rate"
    return Rate(day, currency, value)


class DownloadFailed(Exception):
    """The file could not be had: no answer, an answer other than 200, over the cap or the deadline."""


def download(url: str, *, timeout: float, max_bytes: int) -> bytes:
    """The file at `url`, within `timeout` seconds in all and `max_bytes`; a failed GET is tried again twice."""
    policy = outbound.Policy(deadline=timeout, max_bytes=max_bytes, retries=2, backoff=1.0)
    try:
        response = outbound.request("GET", url, policy=policy)
    except outbound.OutboundError as error:
        raise DownloadFailed(str(error)) from error
    if response.status_code != 200:
        raise DownloadFailed(f"the rates' address answered {response.status_code}")
    return response.content
