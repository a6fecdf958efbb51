"""The arithmetic of a conversion, pure (docs/currencies.md, "Rounding"): a cross rate through the euro in
Decimal at full precision, and the converted amount rounded once, half up, to the target's ISO 4217 minor
units (attribution.money.in_minor_units, the one rounding). No database: the ledger converts an updated
amount at its commission's locked rate with it."""

from dataclasses import dataclass
from datetime import date
from decimal import Context, Decimal

from ..money import in_minor_units

ECB = "ECB"
SAME_CURRENCY = "same currency"  # the source of a conversion that needed no rate (rate 1)

# The context the cross rate is computed in: Decimal's own 28 significant digits, more than five times what
# a published rate carries (five). The product below is exact before its one rounding.
RATE_CONTEXT = Context(prec=28)
_EXACT = Context(prec=80)


def cross_rate(from_per_euro: Decimal, to_per_euro: Decimal) -> Decimal:
    """Units of the target per unit of the source, through the euro: (EUR->to) / (EUR->from)."""
    return RATE_CONTEXT.divide(to_per_euro, from_per_euro)


def at_rate(amount: Decimal, rate: Decimal, currency: str) -> Decimal:
    """`amount` × `rate`, rounded once, half up, to `currency`'s minor units (JPY 0, USD 2, KWD 3)."""
    return in_minor_units(_EXACT.multiply(amount, rate), currency)


@dataclass(frozen=True)
class Conversion:
    """A commission's amount in a reporting currency, or why there is none (`amount` None, `reason` said)."""

    currency: str  # the reporting currency
    amount: Decimal | None
    rate: Decimal | None = None  # target units per unit of the commission's currency, as computed
    rate_date: date | None = None
    source: str = ""
    reason: str = ""

    @property
    def converted(self) -> bool:
        return self.amount is not None
