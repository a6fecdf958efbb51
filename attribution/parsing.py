"""Field rules (docs/decisions.md, "Field formats"): order ids, amounts, currencies, booleans, timestamps,
click ids, and the strict JSON parser. Hosts and email hashing are brands.hosts.

Pure functions with no database. Each parser returns the clean value or raises `FieldError`
with a sentence a brand's developer can act on.
"""

import io
import json
import re
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

import iso4217
from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from .currencies import minor_units

MAX_ORDER_ID_LENGTH = 255
# Amounts below a trillion, kept to six decimals; larger is a template bug, not an order.
MAX_AMOUNT_INTEGER_DIGITS = 12
MAX_AMOUNT_DECIMAL_PLACES = 6
# An order's lines (attribution.orders.lines): at most 250 (Shopify's most line items an order), each quantity
# at most a million, each text (sku, id, vendor, collection) 255 characters, each line in 50 collections.
MAX_LINES, MAX_LINE_QUANTITY, MAX_LINE_TEXT, MAX_LINE_COLLECTIONS = 250, 1_000_000, 255, 50
_AMOUNT_LIMIT = Decimal(10) ** MAX_AMOUNT_INTEGER_DIGITS
_AMOUNT_QUANTUM = Decimal(1).scaleb(-MAX_AMOUNT_DECIMAL_PLACES)

# Click ids are minted by the service: "clk_" and 32 lowercase hex digits. Nothing in them
# needs escaping in a URL or a cookie, so a value that differs was altered on the way.
CLICK_ID_PATTERN = re.compile(r"clk_[0-9a-f]{32}")
# Epoch milliseconds of the year 9999 are below 2.6e14; anything larger is not a timestamp.
_EPOCH_LIMIT = Decimal(10) ** 15
_BASIC_DATE_RANGE = (Decimal(10) ** 7, Decimal(10) ** 8)
_PLAIN_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)


EMPTY_BODY = "Request body is empty."


class FieldError(ValueError):
    """A field value that breaks its rule; the message says how to fix it."""


class BodyTooLarge(ParseError):
    status_code = 413
    default_detail = "Request body is larger than 64 KiB."


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKeys(dict):
    """An object that named a key twice (the last value kept); `duplicate` is the first such key."""

    duplicate = ""


def _object(pairs):
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen = set()
    marked = _DuplicateKeys(obj)
    marked.duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
    return marked


def _parse_int(digits: str):
    # Python refuses to turn more than 4,300 digits into an int; such a number is still valid
    # JSON, and the field rules answer it (an amount out of range, an order id too long).
    return int(digits) if len(digits) <= 100 else Decimal(digits)


# Neither PostgreSQL's text nor jsonb can hold U+0000, and no encoding can hold a lone surrogate
# (JSON can write both as \u escapes); such a body could be neither judged nor stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def holds_unstorable_text(value) -> bool:
    if isinstance(value, str):
        return _UNSTORABLE.search(value) is not None
    if isinstance(value, dict):
        return any(holds_unstorable_text(k) or holds_unstorable_text(v) for k, v in value.items())
    if isinstance(value, list):
        return any(holds_unstorable_text(v) for v in value)
    return False


# Built once: json.loads with these hooks builds a decoder and its scanner on every call (~20k instructions
# of an order confirmation). A decoder keeps no state between documents; json.loads shares its own
# default one the same way.
_DECODER = json.JSONDecoder(
    parse_float=Decimal,
    parse_int=_parse_int,
    parse_constant=_reject_constant,
    object_pairs_hook=_object,
)


def loads_strict(raw: bytes):
    """Parse a JSON document: UTF-8 only, no NaN/Infinity, floats as Decimal.

    The top-level object must not name a key twice: which orderId would count? Inside a nested
    value, which no rule reads, the last one wins rather than losing the event. A leading UTF-8
    byte order mark, which some Windows tools write, is skipped as RFC 8259 allows.
    """
    text = raw.decode("utf-8-sig")  # UnicodeDecodeError is a ValueError
    if text.startswith("\ufeff"):  # a second mark: refused as json.loads refuses it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    document = _DECODER.decode(text)
    if isinstance(document, _DuplicateKeys):
        raise ValueError(f"duplicate key {document.duplicate!r}")
    # Only \u escapes can produce such characters (raw ones are invalid UTF-8 or JSON).
    if "\\u" in text and holds_unstorable_text(document):
        raise ValueError("a string holds \\u0000 or an unpaired surrogate such as \\ud800")
    return document


def read_chunked_body(request) -> None:
    """Make a body sent with `Transfer-Encoding: chunked` readable (a Django HttpRequest, before DRF wraps it).

    Such a body has no Content-Length, and Django and DRF read a request without one as empty: the order
    would be answered "body is empty" and lost. A server that de-chunks the body and marks its end
    (`wsgi.input_terminated`, as gunicorn does) lets it be read up to the size cap; any other server's
    input could block on a connection the client keeps open, so it is left alone.
    """
    meta = request.META
    if meta.get("CONTENT_LENGTH") or not meta.get("wsgi.input_terminated"):
        return
    if "chunked" not in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    body = meta["wsgi.input"].read(settings.API_BODY_MAX_BYTES + 1)
    meta["CONTENT_LENGTH"] = str(len(body))
    request._stream = LimitedStream(io.BytesIO(body), len(body))


class StrictJSONParser(BaseParser):
    """JSON bodies sent as application/json or text/plain (navigator.sendBeacon, "Browser callers" in docs/decisions.md)."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        cap = settings.API_BODY_MAX_BYTES
        raw = stream.read(cap + 1) if stream is not None else b""
        request = (parser_context or {}).get("request")
        if request is not None:
            request.raw_body = raw[:cap]  # the outcome log keeps it as text (brands.privacy)
        if len(raw) > cap:
            drain(stream)
            raise BodyTooLarge()
        if not raw.strip():
            raise ParseError(EMPTY_BODY)
        try:
            document = loads_strict(raw)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"Request body is not valid JSON ({_short(exc)}).") from None
        if request is not None:
            request.body_parsed = True  # the outcome log keeps the whole body, not a preview
        return document


def drain(stream, limit: int | None = None) -> None:
    """Read and drop the rest of an oversized body, up to `limit` (API_BODY_DRAIN_MAX_BYTES), before the 413 goes.

    Straight to gunicorn (no nginx in front), a connection closed with unread bytes in its buffer is reset
    and the client loses the answer it was sent: a 10 MB body got no 413. Drained, it gets it. A body beyond
    the bound is not read (reading it would keep a worker busy for an attacker): its connection is closed
    unread, as before. In production nginx answers 413 itself (config/nginx.conf, client_max_body_size).
    The stream is Django's, which stops at the body's Content-Length (or its de-chunked end).
    """
    left = settings.API_BODY_DRAIN_MAX_BYTES if limit is None else limit
    while left > 0:
        chunk = stream.read(min(65536, left))
        if not chunk:
            return
        left -= len(chunk)


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def shown_order_id(value) -> str:
    """The order id a request names, as its answer and outcome record show it even when the field
    rules refuse it: the id as stored when the rule reads it; else a string or an integer, trimmed and cut to
    the column's 255 characters; "" for anything else. The one rule of the order id every answer's log row
    shows, whichever way in."""
    try:
        return parse_order_id(value)
    except FieldError:
        pass
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value).strip()[:MAX_ORDER_ID_LENGTH]
    return ""


def parse_order_id(value) -> str:
    """A string (trimmed, 1-255 characters) or an integer, stored as its decimal string."""
    if isinstance(value, bool) or value is None:
        raise FieldError("must be a string or an integer")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, Decimal):
        if not value.is_finite() or value != value.to_integral_value():
            raise FieldError("must be a string or an integer, not a number with a fraction")
        # 1e999999999 is a valid JSON number: refuse it before int() builds a billion digits.
        if value.adjusted() >= MAX_ORDER_ID_LENGTH:
            raise FieldError(f"must be a string or an integer of at most {MAX_ORDER_ID_LENGTH} digits")
        text = str(int(value))
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise FieldError("must be a string or an integer, not an object or a list")
    if not text:
        raise FieldError("must not be empty")
    if len(text) > MAX_ORDER_ID_LENGTH:
        raise FieldError(f"must be at most {MAX_ORDER_ID_LENGTH} characters")
    return text


def is_plain_number(value) -> bool:
    """A whole number, or a string holding only a plain decimal number with its sign ("-6.90"; never "1e6",
    "NaN" or "1,000"): what an amount's parts may be."""
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    if isinstance(value, Decimal):
        return value.is_finite()
    return isinstance(value, str) and _PLAIN_DECIMAL.fullmatch(value.strip()) is not None


def parse_amount(value, *, allow_zero: bool) -> Decimal:
    """A JSON number or a string holding only a plain decimal number; never a float."""
    if isinstance(value, bool) or value is None:
        raise FieldError("must be a number")
    places = 0  # digits after the point
    if isinstance(value, int):
        amount = Decimal(value)
    elif isinstance(value, Decimal):
        amount = value
        if not amount.is_finite():
            raise FieldError("must be a finite number")
        places = -amount.as_tuple().exponent
    elif isinstance(value, str):
        text = value.strip()
        # Digits with at most one point ("59.90", the usual amount) are plain without the pattern's match.
        bare = text.replace(".", "", 1)
        if not (bare.isascii() and bare.isdigit()) and not _PLAIN_DECIMAL.fullmatch(text):
            raise FieldError(
                "must be a plain number such as 59.90, without currency symbols, "
                "thousands separators or template placeholders"
            )
        amount = Decimal(text)
        point = text.find(".")
        places = len(text) - point - 1 if point >= 0 else 0
    else:
        raise FieldError("must be a number")
    # Only comparisons and a bounded quantize: normalize() overflows on the valid JSON number
    # 1e999999999 and flushes 1e-999999999 to zero.
    if amount.copy_abs() >= _AMOUNT_LIMIT:
        raise FieldError("is out of range")
    # JavaScript totals carry float noise (0.1 * 3 is 0.30000000000000004): keep six decimals,
    # rounded half-up, and judge what is kept.
    if places > MAX_AMOUNT_DECIMAL_PLACES:
        amount = amount.quantize(_AMOUNT_QUANTUM, rounding=ROUND_HALF_UP)
        # 999999999999.9999995 is below the limit as sent and rounds up onto it: judge what is kept,
        # or the column overflows and the event becomes a fault that never clears.
        if amount.copy_abs() >= _AMOUNT_LIMIT:
            raise FieldError("is out of range")
    if amount.is_zero():
        amount = amount.copy_abs()  # -0.0 is 0
    if amount < 0 or (amount == 0 and not allow_zero):
        raise FieldError("must be greater than 0" if not allow_zero else "must not be negative")
    return amount


def parse_currency(value) -> str:
    """An active ISO 4217 currency with minor units (attribution.currencies), case-insensitive, returned
    upper-case."""
    if not isinstance(value, str) or not value.strip():
        raise FieldError("must be a three-letter ISO 4217 code such as USD")
    text = value.strip()
    # Letters only as ASCII spells them: str.upper() also turns "ſ" into "S" and "ı" into "I".
    code = text.upper() if text.isascii() else text
    if len(code) != 3 or minor_units(code) is None:
        if len(code) == 3 and code in iso4217.Currency.__members__:
            # XAU (gold), XDR, XTS, XXX: in ISO 4217, but no money an order is paid in.
            raise FieldError(f"{code!r} has no minor units in ISO 4217 (a metal, fund or testing code)")
        raise FieldError(f"{code[:12]!r} is not an ISO 4217 currency code")
    return code


def parse_bool(value, *, default: bool = False) -> bool:
    """JSON booleans, and the strings "true"/"false" some snippets send."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise FieldError("must be true or false")


def parse_timestamp(value) -> datetime:
    """ISO 8601 (UTC when no offset) or Unix epoch seconds/milliseconds, as number or numeric string.

    An eight-digit integer that is a valid YYYYMMDD date is read as that date (ISO 8601's basic format).
    """
    if isinstance(value, bool) or value is None:
        raise FieldError("must be an ISO 8601 timestamp or Unix epoch seconds")
    number = None
    if isinstance(value, int | Decimal):
        number = Decimal(value)
    elif isinstance(value, str):
        text = value.strip()
        if _PLAIN_DECIMAL.fullmatch(text):
            number = Decimal(text)
        else:
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise FieldError("must be an ISO 8601 timestamp or Unix epoch seconds") from None
            if parsed.tzinfo is None:
                return parsed.replace(tzinfo=UTC)
            try:  # 0001-01-01T00:00+01:00 parses, but is before the first storable instant in UTC
                return parsed.astimezone(UTC)
            except OverflowError:
                raise FieldError("is out of range") from None
    else:
        raise FieldError("must be an ISO 8601 timestamp or Unix epoch seconds")
    if not number.is_finite():
        raise FieldError("must be a finite number")
    # copy_abs(), not abs(): abs() rounds to the decimal context and overflows on 1e999999999.
    if number.copy_abs() >= _EPOCH_LIMIT:
        raise FieldError("is out of range")
    if _BASIC_DATE_RANGE[0] <= number < _BASIC_DATE_RANGE[1] and number == number.to_integral_value():
        # Eight digits are an ISO 8601 basic date (20261224), not a moment of 1970-1973 in epoch
        # seconds: no order placed today has a return window that closed before it was placed.
        digits = str(int(number))
        try:
            return datetime(int(digits[:4]), int(digits[4:6]), int(digits[6:]), tzinfo=UTC)
        except ValueError:
            pass
    # Epoch milliseconds are 13 digits today; seconds stay below 1e11 until the year 5138.
    seconds = number / 1000 if abs(number) >= Decimal("1e11") else number
    try:
        return datetime.fromtimestamp(float(seconds), tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise FieldError("is out of range") from None


def parse_optional_text(value, *, max_length: int = 255) -> str | None:
    """clickId and code: null, absent or empty after trimming mean not given."""
    if value is None:
        return None
    if not isinstance(value, str):
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        else:
            raise FieldError("must be a string")
    text = value.strip()
    if not text:
        return None
    if len(text) > max_length:
        raise FieldError(f"must be at most {max_length} characters")
    return text


def parse_optional_email(value) -> str | None:
    """customer_email (docs/decisions.md, "Known shoppers"): a string when given; a number or a flag is a template bug."""
    if value is not None and not isinstance(value, str):
        raise FieldError("must be a string such as shopper@example.com")
    return parse_optional_text(value, max_length=320)


def parse_click_id(value) -> str | None:
    """clickId: null, absent or blank is no click; anything else must be a click id exactly as minted."""
    try:
        text = parse_optional_text(value, max_length=255)
    except FieldError:
        raise FieldError("could not be read") from None
    if text is not None and not is_click_id(text):
        raise FieldError("could not be read")
    return text


def is_click_id(value: str) -> bool:
    return CLICK_ID_PATTERN.fullmatch(value) is not None
