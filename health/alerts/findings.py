"""What every alert rule returns: a finding (the incident its condition opens, with the figures it reports),
and what an incident says (its description). Each concern's package holds its rules and descriptions."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Description:
    """What an incident says (health.alerts.descriptions writes them)."""

    title: str
    summary: str
    fix: str
    events_query: dict  # the events list's filters that show the matching events (brand incidents)


@dataclass(frozen=True)
class Finding:
    """A rule whose condition holds: the incident it opens, and the figures it reports."""

    rule: str
    subject: str
    counts: dict
