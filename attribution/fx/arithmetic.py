"""The arithmetic of a conversion, pure (docs/currencies.md, "Rounding"): a cross rate through the euro in
Decimal at full precision, and the converted amount rounded once, half up, to the target's ISO 4217 minor
units (attribution.money.at_rate, beside the one rounding, where the ledger converts an updated amount at
its commission's locked rate too). No database."""

from dataclasses import dataclass
from datetime import date
from decimal import Context, Decimal

from ..money import at_rate

__all__ = ["ECB", "SAME_CURRENCY", "Conversion", "at_rate", "cross_rate"]

ECB = "ECB"
SAME_CURRENCY = "same currency"  # the source of a conversion that needed no rate (rate 1)

# The context the cross rate is computed in: Decimal's own 28 significant digits, more than five times what
# a published rate carries (five). The converted amount is exact before its one rounding (money.at_rate).
RATE_CONTEXT = Context(prec=28)


def cross_rate(from_per_euro: Decimal, to_per_euro: Decimal) -> Decimal:
    """Units of the target per unit of the source, through the euro: (EUR->to) / (EUR->from)."""
    return RATE_CONTEXT.divide(to_per_euro, from_per_euro)


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
