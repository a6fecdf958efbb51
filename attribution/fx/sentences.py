"""The line every page that totals in a reporting currency says about the rates it used (docs/currencies.md)."""

from datetime import date

from .arithmetic import ECB


def rates_used(currency: str, days, sources=(ECB,), *, converted: bool = True) -> str:
    """Which rates a total in `currency` was converted at: their source and the span of their days.
    `converted`: something was converted (in `currency` already, it needed no rate)."""
    known = sorted({d for d in days if d is not None})
    if not known and not converted:
        return f"Nothing converted into {currency} yet."
    span = ""
    if known:
        span = _day(known[0]) if known[0] == known[-1] else f"{_day(known[0])} to {_day(known[-1])}"
        span = f" (rates published {span})"
    source = "the ECB reference rate" if ECB in sources or not known else "the rate"
    return (
        f"In {currency}: each commission converted when it was created, at {source} of its order's date{span}, "
        f"and rounded once to {currency}'s minor units; its rate and date are on the commission and in the "
        "CSV export."
    )


def _day(day: date) -> str:
    return day.isoformat()
