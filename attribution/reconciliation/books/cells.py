"""One cell of a book, read: amounts in the file's number format, dates, flags, the first of a list of codes,
the click among Shopify's note attributes. Each raises FieldError with the reason a row is refused."""

import re
from datetime import UTC, datetime
from decimal import Decimal

from attribution.parsing import FieldError, parse_amount, parse_optional_text

from .platform_terms import CLICK_ATTRIBUTE

_PLAIN_DIGITS = re.compile(r"\d+(\.\d+)?")
_POINT_DECIMALS = re.compile(r"\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?")
_COMMA_DECIMALS = re.compile(r"\d{1,3}([. \u00a0]\d{3})+(,\d+)?|\d+(,\d+)?")


def read_amount(text: str, *, decimal_mark: str, allow_zero: bool = False) -> Decimal:
    """An amount in the file's number format; FieldError with the reason otherwise."""
    value = text.strip()
    if not value:
        raise FieldError("is empty")
    if _PLAIN_DIGITS.fullmatch(value):  # most cells: 59.90 reads the same in either format, so no grouping
        if decimal_mark == "." or "." not in value:
            return parse_amount(value, allow_zero=allow_zero)
    pattern = _POINT_DECIMALS if decimal_mark == "." else _COMMA_DECIMALS
    if not pattern.fullmatch(value):
        example = "1,234.50" if decimal_mark == "." else "1.234,50"
        raise FieldError(
            f"{value[:40]!r} does not read as a number of this file (such as {example}, without a currency symbol)"
        )
    if decimal_mark == ".":
        plain = value.replace(",", "")
    else:
        plain = re.sub(r"[. \u00a0]", "", value).replace(",", ".")
    return parse_amount(plain, allow_zero=allow_zero)


_SPACED_OFFSET = re.compile(r" ([+-]\d{2}:?\d{2})$")


def read_time(text: str) -> datetime | None:
    """ISO 8601, a date, or Shopify's `2026-11-24 10:15:00 -0500`; UTC when no offset is written."""
    value = text.strip()
    if not value:
        return None
    if " " in value and (value[-5:-4] in ("+", "-") or value[-6:-5] in ("+", "-")):
        value = _SPACED_OFFSET.sub(r"\1", value)  # Shopify's "2026-11-24 10:15:00 -0500"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise FieldError(f"{text[:40]!r} is not a date such as 2026-11-24 or 2026-11-24T10:15:00Z") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


_TRUE, _FALSE = {"true", "1", "yes", "y"}, {"false", "0", "no", "n", ""}


def read_flag(text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise FieldError(f"{text[:20]!r} is not true or false")


def first_code(text: str) -> str:
    """The first of the codes a cell lists (Shopify and WooCommerce join several with commas)."""
    first = text.replace(";", ",").split(",")[0] if text else ""
    return parse_optional_text(first) or ""


def click_of_notes(text: str) -> str:
    """The click id among Shopify's note attributes (`name: value` lines)."""
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == CLICK_ATTRIBUTE:
            return value.strip()
    return ""
