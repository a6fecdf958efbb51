"""A commission's conversion into its brand's reporting currency, locked when the commission is created
(docs/currencies.md): at the rates in force on the order's own date, through the euro, rounded once. What is
locked is kept on the commission (its reporting_* and fx_* columns); an amount update converts at the same
rate (attribution.models.Commission.change_amount). A currency with no rate stays unconverted, with why."""

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from . import lookup
from .arithmetic import SAME_CURRENCY, Conversion, at_rate, cross_rate

EURO = "EUR"
# The ECB dates its rates by Frankfurt's calendar: an order's rate day is its date there
# (docs/decisions.md, "Currency conversion: the rate of the order's date").
ECB_ZONE = ZoneInfo("Europe/Berlin")
ONE = Decimal(1)


def rate_day(ordered_at: datetime) -> date:
    """The day whose rates an order placed at `ordered_at` converts at."""
    return ordered_at.astimezone(ECB_ZONE).date()


def convert(amount: Decimal, currency: str, *, to: str, ordered_at: datetime, model=None) -> Conversion:
    """`amount` of `currency` in `to`, at the last rates published on or before the order's date.
    `model`: a migration's historical FxRate."""
    day = rate_day(ordered_at)
    if currency == to:
        return Conversion(to, amount, ONE, day, SAME_CURRENCY)
    found = lookup.rates_on(day, model=model)
    if found.published is None:
        return Conversion(to, None, reason=f"No reference rate is stored on or before {day}.")
    per_euro = {}
    for code in (currency, to):
        if code == EURO:
            per_euro[code] = (ONE, "")
        elif code in found.rates:
            per_euro[code] = found.rates[code]
        else:
            return Conversion(
                to,
                None,
                reason=f"No ECB reference rate for {code} on {found.published}, the last publication on or "
                f"before {day}.",
            )
    (from_rate, from_source), (to_rate, to_source) = per_euro[currency], per_euro[to]
    rate = cross_rate(from_rate, to_rate)
    return Conversion(to, at_rate(amount, rate, to), rate, found.published, from_source or to_source)


def columns(conversion: Conversion) -> dict:
    """The commission's columns that lock `conversion` (attribution.models.Commission)."""
    return {
        "reporting_currency": conversion.currency,
        "reporting_amount": conversion.amount,
        "fx_rate": format(conversion.rate, "f") if conversion.rate is not None else "",
        "fx_rate_date": conversion.rate_date,
        "fx_source": conversion.source,
        "fx_reason": conversion.reason,
    }


def locked(commission) -> Conversion | None:
    """What a stored commission locked, or None when it was never converted (stored before conversion
    existed, and not yet backfilled)."""
    if not commission.reporting_currency:
        return None
    return Conversion(
        commission.reporting_currency,
        commission.reporting_amount,
        Decimal(commission.fx_rate) if commission.fx_rate else None,
        commission.fx_rate_date,
        commission.fx_source,
        commission.fx_reason,
    )


def translate(
    amounts: dict[str, Decimal], *, to: str, at: datetime
) -> tuple[Decimal, dict[str, Decimal], date | None]:
    """Totals of several currencies in `to` at the rates in force at `at` (not a locked conversion: the
    portfolio's sum of brands, docs/currencies.md): the sum, the amounts of currencies with no rate (apart),
    and the publication day of the rates used (None when none was needed)."""
    total, apart, day = Decimal(0), {}, None
    for currency, amount in amounts.items():
        converted = convert(amount, currency, to=to, ordered_at=at)
        if converted.converted:
            total += converted.amount
            if converted.source != SAME_CURRENCY:
                day = converted.rate_date
        else:
            apart[currency] = amount
    return total, apart, day
