r"""What each field rule of attribution.parsing accepts, spelled as JSON Schema (OpenAPI 3.0) for the
fields of attribution.contract.serializers: patterns for strings, bounds for numbers.

Whitespace, digits and letters are spelled out rather than written \s, \d or with flags, whose
meaning differs between Python, the ECMAScript dialect of OpenAPI and the validators of clients;
[\s\S] is any character in all of them.
"""

from decimal import Decimal

from rest_framework import serializers

from attribution import currencies, parsing

# The characters str.strip() removes: the rules trim every string they read.
SPACE = r"[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_SOLID = "[^" + SPACE[1:]  # anything but those


def trimmed(inner: str) -> str:
    """A whole string that, without the spaces around it, matches `inner`."""
    return f"^{SPACE}*(?:{inner}){SPACE}*$"


def text_of_at_most(length: int) -> str:
    """1 to `length` characters, neither first nor last a space."""
    return f"{_SOLID}(?:[\\s\\S]{{0,{length - 2}}}{_SOLID})?"


def amount_pattern(*, allow_zero: bool) -> str:
    """Plain decimal strings whose value, kept to six places (rounded half-up), is greater than 0 (or
    0 or more) and below 10^12: parse_amount on a string."""
    digits, places = parsing.MAX_AMOUNT_INTEGER_DIGITS, parsing.MAX_AMOUNT_DECIMAL_PLACES
    # ... and never 999999999999.9999995 or more, which rounds up onto 10^12 (out of range).
    up_to_the_limit = f"(?!9{{{digits}}}\\.9{{{places}}}[5-9])"
    whole = f"0*{up_to_the_limit}[1-9][0-9]{{0,{digits - 1}}}(?:\\.[0-9]*)?"
    # Below 1: a digit other than 0 among the places kept, or a first dropped digit that rounds up.
    fraction = f"0*\\.(?:0{{0,{places - 1}}}[1-9]|0{{{places}}}[5-9])[0-9]*"
    positive = f"\\+?(?:{whole}|{fraction})"
    if not allow_zero:
        return trimmed(positive)
    rounds_to_zero = f"(?:0{{0,{places}}}|0{{{places}}}[0-4][0-9]*)"
    zero = f"[+-]?(?:0+(?:\\.{rounds_to_zero})?|0*\\.(?:0{{1,{places}}}|0{{{places}}}[0-4][0-9]*))"
    return trimmed(f"{positive}|{zero}")


def amount_number(*, allow_zero: bool) -> dict:
    half_a_place = float(Decimal(1).scaleb(-parsing.MAX_AMOUNT_DECIMAL_PLACES) / 2)
    number = {"type": "number", "maximum": 10**parsing.MAX_AMOUNT_INTEGER_DIGITS, "exclusiveMaximum": True}
    if allow_zero:  # -0.0000004 is kept as 0
        return {**number, "minimum": -half_a_place, "exclusiveMinimum": True}
    return {**number, "minimum": half_a_place}


def _letters(letters: str) -> str:
    return "[" + "".join(f"{c.upper()}{c.lower()}" for c in letters) + "]"


def _case_blind(word: str) -> str:
    return "".join(_letters(c) for c in word)


def _case_blind_codes(codes: list[str]) -> str:
    """Three-letter codes in any case, grouped by their first two letters (AED|AFN is A(E D|F N))."""
    tree: dict[str, dict[str, str]] = {}
    for code in codes:
        seconds = tree.setdefault(code[0], {})
        seconds[code[1]] = seconds.get(code[1], "") + code[2]
    return "|".join(
        _letters(first)
        + "(?:"
        + "|".join(_letters(second) + _letters(thirds) for second, thirds in seconds.items())
        + ")"
        for first, seconds in tree.items()
    )


CURRENCY_PATTERN = trimmed(_case_blind_codes(currencies.currency_codes()))
FLAG_PATTERN = trimmed(f"{_case_blind('true')}|{_case_blind('false')}")


def whole_number_of_at_most(length: int) -> dict:
    """Numbers without a fraction whose digits (and minus sign) fit in `length` characters."""
    return {
        "type": "number",
        "multipleOf": 1,
        "minimum": -(10 ** (length - 1) - 1),
        "maximum": 10**length - 1,
    }


def nullable(schema: dict, rule: serializers.Field) -> dict:
    return {**schema, "nullable": True} if rule.allow_null else schema
