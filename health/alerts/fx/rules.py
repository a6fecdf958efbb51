"""The account managers' alert on the currency rates (docs/alerts.md, docs/currencies.md): the newest stored
reference rate is older than FX_RATES_STALE_DAYS, so new commissions convert at an old rate (the daily refresh
has been failing). Pure, as the other rules: the newest day is read beforehand (health.alerts.events.facts)."""

from datetime import date, datetime

from health.alerts.events.rules import ServiceFacts
from health.alerts.findings import Description, Finding
from health.alerts.models import Incident

Rule = Incident.Rule

FIX = (
    "The daily refresh of the ECB's reference rates is not storing new days: check the 'Refresh the currency "
    "rates' task in the admin and its log, that FX_RATES_URL answers (or FX_RATES_FILE is updated), then run "
    "`manage.py load_fx_rates`. Commissions convert at the last rate stored meanwhile, each showing its date."
)


def days_old(newest: date | None, now: datetime) -> int | None:
    return None if newest is None else (now.date() - newest).days


def check(facts: ServiceFacts, now: datetime, *, stale_days: int) -> Finding | None:
    """Open when no rate is stored or the newest is more than `stale_days` days old."""
    age = days_old(facts.newest_rate_day, now)
    if age is not None and age <= stale_days:
        return None
    newest = facts.newest_rate_day.isoformat() if facts.newest_rate_day else None
    return Finding(Rule.FX_STALE, "", {"newest_day": newest, "days_old": age, "stale_days": stale_days})


def cleared(facts: ServiceFacts, now: datetime, *, stale_days: int) -> bool:
    return check(facts, now, stale_days=stale_days) is None


def describe(incident: Incident) -> Description:
    c = incident.counts or {}
    if c.get("newest_day"):
        summary = (
            f"The newest currency rate stored is of {c['newest_day']}, {c['days_old']} days before this "
            f"incident opened (the limit is {c['stale_days']})."
        )
    else:
        summary = (
            "No currency rate is stored: commissions in another currency than their brand's stay unconverted."
        )
    return Description("Currency rates out of date", summary, FIX, {})
