"""ISO 4217 currencies as orders are paid in them: the codes with minor units, and each one's exponent.

Below both the ledger (money rounds to the minor units) and the field rules (parsing accepts these codes),
so neither reaches into the other.
"""

from functools import lru_cache

import iso4217


@lru_cache(maxsize=512)
def minor_units(code: str) -> int | None:
    """The currency's minor units (JPY 0, USD 2, KWD 3); None when `code` is not an ISO 4217 currency with
    them (a metal, fund or testing code, or no code at all)."""
    try:
        return iso4217.Currency(code).exponent
    except ValueError:
        return None


def currency_codes() -> list[str]:
    """Every currency an order may be paid in, upper-case: those of ISO 4217 with minor units."""
    return sorted(
        {name.upper() for name in iso4217.Currency.__members__ if minor_units(name.upper()) is not None}
    )


def currency_exponent(code: str) -> int:
    """Minor units of a currency already accepted by the field rules (JPY 0, USD 2, KWD 3)."""
    exponent = minor_units(code)
    if exponent is None:
        raise ValueError(f"{code!r} is not an ISO 4217 currency code")
    return exponent
