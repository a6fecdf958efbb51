"""The line every page that totals in a reporting currency says about the rates it used (docs/currencies.md)."""

from datetime import date

from .arithmetic import ECB


def rates_used(currency: str, days, sources) -> str:
    """Which rates a total in `currency` was converted at: their source and the span of their days."""
    known = sorted({d for d in days if d is not None})
    if not known:
        return f"Nothing converted into {currency} yet."
    span = _day(known[0]) if known[0] == known[-1] else f"{_day(known[0])} to {_day(known[-1])}"
    if ECB in sources:
        rate = f"the ECB reference rate of its order's date (published {span})"
    else:
        rate = f"no rate needed, all in {currency} ({span})"
    return (
        f"In {currency}: each commission converted when it was created, at {rate}, and rounded once to "
        f"{currency}'s minor units; the rate and its date are on each commission and in the CSV export."
    )


def _day(day: date) -> str:
    return day.isoformat()
