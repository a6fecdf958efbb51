"""Shoppers' email addresses never leave the request: every body the service keeps (the outcome log,
the spool, the preview of a body that is not JSON) is the text as received with each address replaced
by its hash (docs/decisions.md, "What the outcome log records").

The body is kept as text, not parsed and written again, so numbers keep the form they were sent in
(12.5 stays a number, 0.0000001 stays 0.0000001). Inside a string, an address is found after JSON's
escapes are read (`\\u0040` is an @), and may be URL-encoded (`%40`, as in a page_url's query) or have
a quoted local part (`"john doe"@example.com`). Outside strings (only in text that is not JSON),
anything around an at sign in any of those spellings is redacted.

The top-level `customer_email` is replaced whole by `sha256:` and its hash (`brands.hosts.hash_email`,
which takes that form back as the hash, so a spooled event replays with the same known shopper).
The top-level order id is the brand's own key for the order and is kept as sent, as the order itself is.

A storefront platform's order (attribution/platforms/) also carries the shopper's name, addresses, phone
number and browser: `keep_platform_body` keeps only the fields the service reads, addresses hashed
(docs/decisions.md, "What a platform's delivery keeps").
"""

import json
import re
from decimal import Decimal

import orjson

from config.lib.jsontext import TOKEN

from .hosts import hash_email

HASHED_PREFIX = "sha256:"
REDACTED = "[email redacted]"
UNPARSED_PREVIEW_CHARS = 2000

_WHOLE_VALUE_HASHED = frozenset({"customer_email"})
_KEPT_AS_SENT = frozenset({"orderId", "order_id"})

# The local part stops at characters that separate a URL's parts (/ ? & =), so the address inside
# https://shop.example/thanks?email=ana%40example.com is redacted and the rest of the URL is kept.
_ADDRESS = re.compile(
    r"""(?:"[^"\\]*(?:\\.[^"\\]*)*"|[\w.!#$%'*+^`{|}~-]+)(?:@|%40)(?:\[[^\]\s]*\]|[\w-]+(?:\.[\w-]+)+)""",
    re.IGNORECASE,
)
_LOOSE_AT = re.compile(r"""[^\s{}\[\],:"']+(?:@|\\u0040|%40)[^\s{}\[\],:"']+""", re.IGNORECASE)
_ANY_AT = re.compile(r"@|\\u0040|%40", re.IGNORECASE)
_SURROGATE = re.compile("[\ud800-\udfff]")


def hashed(address: str) -> str:
    """How a kept body writes an address: `sha256:` and the hash known shoppers are matched by."""
    return HASHED_PREFIX + hash_email(address)


def _hash_match(match: re.Match) -> str:
    return hashed(re.sub("%40", "@", match.group(), flags=re.IGNORECASE))


def redact_text(value: str) -> str:
    """A string with every email address in it replaced by its hash."""
    if "@" not in value and "%" not in value:
        return value
    return _ADDRESS.sub(_hash_match, value)


def redact_value(value):
    """A parsed JSON value (the answers the service logs) with every address in its strings hashed."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(k): redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


def _loose(text: str) -> str:
    return _LOOSE_AT.sub(REDACTED, text)


def _literal(token: str, *, key: str | None) -> str:
    """A JSON string literal as kept; unchanged, escapes and all, when it holds no address."""
    if key not in _WHOLE_VALUE_HASHED and "\\" not in token and "@" not in token and "%" not in token:
        return token  # no escape to read and no at sign in any spelling: nothing to find
    try:
        value = json.loads(token)
    except ValueError:  # an escape JSON does not know: only in text that is not JSON
        return _loose(token)
    if key in _KEPT_AS_SENT:
        return token
    try:
        kept = (
            (hashed(value) if value.strip() else value) if key in _WHOLE_VALUE_HASHED else redact_text(value)
        )
    except UnicodeEncodeError:  # a lone surrogate (only in text that is not JSON): no address to hash
        return json.dumps(REDACTED)
    if kept == value:
        return token
    written = json.dumps(kept, ensure_ascii=False)
    # No text column holds a lone surrogate: such a string stays written as escapes.
    return json.dumps(kept) if _SURROGATE.search(written) else written


def _may_hold_an_address(text: str) -> bool:
    """Whether `text` holds an at sign in any spelling (what _ANY_AT finds), a \\u escape that could
    write one, or a member hashed whole. Substring tests rather than _ANY_AT's search, which ran a
    case-insensitive match at every character of every body (~10k instructions of an order
    confirmation): of its spellings only the u of \\u0040 has a case, and \\u is looked for anyway."""
    return (
        "@" in text
        or "%40" in text
        or "\\u" in text
        or "\\U0040" in text
        or any(name in text for name in _WHOLE_VALUE_HASHED)
    )


def redact_body(text: str) -> str:
    """Body text with every address replaced, and the rest exactly as it was."""
    if not _may_hold_an_address(text):
        return text
    out = []
    depth = 0
    in_object = False  # the body is an object: its top-level members are tracked by name
    key: str | None = None  # the top-level member being read
    expecting_key = True
    for match in TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == "{" or first == "[":
            depth += 1
            if depth == 1:
                in_object, expecting_key, key = first == "{", True, None
            out.append(token)
        elif first == "}" or first == "]":
            depth -= 1
            out.append(token)
        elif first == '"' and len(token) > 1:
            top_level = depth == 1 and in_object
            if top_level and expecting_key:
                try:
                    key = json.loads(token) if "\\" in token else token[1:-1]
                except ValueError:
                    key = None
                out.append(_literal(token, key=None))
            else:
                out.append(_literal(token, key=key if top_level else None))
        else:
            if depth == 1 and in_object:
                comma, colon = token.rfind(","), token.rfind(":")
                if comma > colon:
                    expecting_key, key = True, None
                elif colon > comma:
                    expecting_key = False
            out.append(_loose(token) if _ANY_AT.search(token) else token)
    return "".join(out)


def keep_body(raw: bytes | str | None, *, preview: bool) -> str | None:
    """A request body as the service may store it: addresses hashed; with `preview` (a body that did not
    parse as JSON, in the outcome log) only its first UNPARSED_PREVIEW_CHARS characters."""
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    # errors="replace" leaves no character a text column refuses but NUL.
    text = text.removeprefix("\ufeff").replace("\x00", "\ufffd")
    kept = redact_body(text)
    return kept[:UNPARSED_PREVIEW_CHARS] if preview else kept


def _number(value):
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and "E" not in str(value) else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def keep_platform_body(kept: dict) -> str:
    """What the service keeps of a storefront platform's order: the fields its platform module reads (never the
    shopper's name, addresses, phone or browser, which it does not read), every address in them hashed. The
    module hashes the address fields it knows (`hashed`); an address anywhere else (a note, a cart attribute)
    is found by redact_body's scan, which runs only when the text holds an at sign in some spelling."""
    text = _compact(kept)
    return redact_body(text) if "@" in text or "%40" in text or "\\u" in text else text


def _compact(kept: dict) -> str:
    """`kept` as compact JSON in UTF-8, the text `json.dumps(kept, ensure_ascii=False, separators=(",", ":"),
    default=_number)` writes, by orjson (json's encoder was ~50k instructions of a platform's delivery,
    docs/performance.md); what orjson does not write (an integer beyond 64 bits, a lone surrogate) by json."""
    try:
        return orjson.dumps(kept, default=_number, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError included
        return json.dumps(kept, ensure_ascii=False, separators=(",", ":"), default=_number)
