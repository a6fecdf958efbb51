"""The European Central Bank's reference-rate files, read (docs/currencies.md, "Rates"): the whole history
(`eurofxref-hist.zip`, one CSV inside, newest day first, `N/A` where a currency had no rate, a trailing
comma on each line) or its CSV as is, and the XML files (`eurofxref-hist-90d.xml`, `eurofxref-daily.xml`).
Downloads go through httpx with a timeout and no redirects to elsewhere than the ECB's own answer."""

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from xml.etree import ElementTree

import httpx

SOURCE = "ECB"
_XML_NS = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"


class UnreadableRates(ValueError):
    """The file is not one of the ECB's reference-rate files; nothing of it is loaded."""


@dataclass(frozen=True)
class Rate:
    day: date
    currency: str
    per_euro: Decimal


def read(data: bytes, *, since: date | None = None) -> list[Rate]:
    """Every rate in `data` (from `since`): a zip holding the history CSV, the CSV itself, or one of the XML
    files."""
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = [n for n in archive.namelist() if n.lower().endswith(".csv")]
                if not names:
                    raise UnreadableRates("the zip holds no CSV file")
                data = archive.read(names[0])
        except zipfile.BadZipFile as error:
            raise UnreadableRates(f"not a readable zip: {error}") from error
    head = data.lstrip()[:5]
    rates = list(_from_xml(data, since) if head.startswith(b"<") else _from_csv(data, since))
    if not rates:
        raise UnreadableRates("no rate in the file")
    return rates


def _from_csv(data: bytes, since: date | None) -> Iterator[Rate]:
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
        day = _day(row[0])
        if since is not None and day < since:
            continue
        for currency, cell in zip(header[1:], row[1:], strict=False):
            if currency and cell.strip() not in ("", "N/A"):
                yield Rate(day, currency, _rate(cell, currency, day))


def _from_xml(data: bytes, since: date | None) -> Iterator[Rate]:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise UnreadableRates(f"not readable XML: {error}") from error
    for day_cube in root.iter(f"{_XML_NS}Cube"):
        if "time" not in day_cube.attrib:
            continue
        day = _day(day_cube.attrib["time"])
        if since is not None and day < since:
            continue
        for cube in day_cube:
            currency = cube.attrib.get("currency", "")
            if currency:
                yield Rate(day, currency, _rate(cube.attrib.get("rate", ""), currency, day))


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as error:
        raise UnreadableRates(f"{text.strip()!r} is not a date (YYYY-MM-DD)") from error


def _rate(text: str, currency: str, day: date) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation as error:
        raise UnreadableRates(f"{currency} on {day}: {text.strip()!r} is not a number") from error
    if not value.is_finite() or value <= 0 or len(currency) != 3 or not currency.isalpha():
        raise UnreadableRates(f"{currency} on {day}: {text.strip()!r} is not a rate")
    return value


def download(url: str, *, timeout: float, transport: httpx.BaseTransport | None = None) -> bytes:
    """The file at `url` (httpx; tests pass a MockTransport). Raises httpx.HTTPError on a failed download."""
    with httpx.Client(timeout=timeout, transport=transport, follow_redirects=True) as client:
        response = client.get(url)
        response.raise_for_status()
        return response.content
