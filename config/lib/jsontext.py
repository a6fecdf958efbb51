"""JSON as text: its tokens, and an indented rendering that keeps every literal exactly as written.

Parsing and dumping again would change what was sent: 12.5 read as a Decimal and written as a string,
1E-7 for 0.0000001, 100.0 for 100.00, keys reordered by PostgreSQL's jsonb. These functions only move
whitespace, so a number, a string and its escapes read exactly as they arrived.
"""

import json
import re
from functools import cache

import orjson

# A string literal (escapes included), a bracket, a run of anything else, or a quote that opens a
# string never closed (only in text that is not JSON).
TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^"{}\[\]]+|"', re.DOTALL)


# orjson's options for a column's JSON: keys that are not text written as json writes them, and datetimes
# left to the encoder (json's own format for them, not orjson's).
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def dumps(value, encoder: type[json.JSONEncoder] | None = None) -> str:
    """`value` as JSON text for a jsonb parameter: the document `json.dumps(value, cls=encoder)` writes, compact
    and in UTF-8, by orjson at a tenth of the cost (~13k instructions a value with json's encoder built for
    each call: an order writes three or four, docs/performance.md). A value orjson does not write (an integer
    beyond 64 bits, a lone surrogate, a type neither it nor `encoder` knows) is left to json.dumps, which
    writes it or raises as before."""
    try:
        return orjson.dumps(value, default=_default_of(encoder), option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError included
        return json.dumps(value, cls=encoder)


@cache
def _default_of(encoder: type[json.JSONEncoder] | None):
    """What `encoder` writes for a type JSON does not know (DjangoJSONEncoder: datetimes, Decimals, UUIDs, ...)."""
    if encoder is None:
        return None
    return encoder().default


def is_json(text: str) -> bool:
    try:
        json.loads(text, parse_float=str, parse_int=str, parse_constant=str)
    except (ValueError, RecursionError):
        return False
    return True


def indented(text: str, indent: str = "  ") -> str:
    """`text` with one member or element per line, indented; text that is not JSON is returned as it is."""
    if not is_json(text):
        return text
    out: list[str] = []
    depth = 0
    for match in TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
            out.append(token + "\n" + indent * depth)
        elif token in "}]":
            depth -= 1
            if out and out[-1].endswith("\n" + indent * (depth + 1)) and out[-1][0] in "{[":
                out[-1] = out[-1][0]  # an empty object or list stays {} or []
            else:
                out.append("\n" + indent * depth)
            out.append(token)
        elif token.startswith('"'):
            out.append(token)
        else:  # whitespace, commas, colons and the other literals between strings and brackets
            for char in token:
                if char == ",":
                    out.append(",\n" + indent * depth)
                elif char == ":":
                    out.append(": ")
                elif not char.isspace():
                    out.append(char)
    return "".join(out)
