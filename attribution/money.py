"""The one place amounts are rounded and written out. Money is Decimal end to end; a commission is
rounded once, half-up, to its currency's ISO 4217 minor units (JPY 0, USD 2, KWD 3), and the same
function writes every amount a page, an answer or a CSV file shows."""

from decimal import ROUND_HALF_UP, Context, Decimal

from .currencies import currency_exponent


def in_minor_units(value: Decimal, currency: str) -> Decimal:
    """`value` rounded half-up to the currency's minor units: 5.994 USD -> 5.99, 599.5 JPY -> 600."""
    quantum = _QUANTA.get(currency)
    if quantum is None:
        quantum = _QUANTA[currency] = Decimal(1).scaleb(-currency_exponent(currency))
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


# Each currency's minor unit as a Decimal (USD 0.01), made once: a commission's calculation rounds a dozen
# figures. Only currencies currency_exponent accepts are kept, so the dict stays within ISO 4217's list.
_QUANTA: dict[str, Decimal] = {}


_EXACT = Context(prec=80)  # the product of an amount and a rate, exact before its one rounding


def at_rate(amount: Decimal, rate: Decimal, currency: str) -> Decimal:
    """`amount` × `rate`, rounded once, half up, to `currency`'s minor units (JPY 0, USD 2, KWD 3): a
    conversion at a locked rate (attribution.fx; an amount update converts with it too)."""
    return in_minor_units(_EXACT.multiply(amount, rate), currency)


def commission_amount(order_amount: Decimal, rate_percent: Decimal, currency: str) -> Decimal:
    """Order amount × rate (docs/decisions.md, "Commission amount")."""
    return in_minor_units(order_amount * rate_percent / Decimal(100), currency)


def money(value: Decimal, currency: str) -> str:
    """A commission or statement amount as text, in minor units: "5.99" USD, "599" JPY."""
    return str(in_minor_units(value, currency))


def plain(value: Decimal) -> str:
    """A stored order amount without the storage's trailing zeros: 59.900000 -> "59.9", 100 -> "100"."""
    return format(value.normalize() + 0, "f")  # + 0: a zero sent as -0.0 reads 0


def order_total(value: Decimal, currency: str) -> str:
    """An order total as a person writes it: 49.90 and 1000000.00 USD, while 59.905 USD is kept whole."""
    exact = plain(value)
    if "." in exact and len(exact.partition(".")[2]) > currency_exponent(currency):
        return exact
    return money(value, currency)
