"""What every incident says (docs/alerts.md): its title, one-sentence summary, fix and the events that match it,
from the figures that opened it (Incident.counts), each concern's own (its package's description). Pages,
notifications and the admin read it here. Pure."""

from health.alerts.connections import rules as connection_rules
from health.alerts.events import descriptions as event_descriptions
from health.alerts.findings import Description
from health.alerts.fx import rules as fx_rules
from health.alerts.models import Incident
from health.alerts.review import rules as review_rules
from health.alerts.sync import descriptions as sync_descriptions

Rule = Incident.Rule


def describe(incident: Incident) -> Description:
    """Title, one-sentence summary, fix and matching events of an incident, from the figures that opened it."""
    if incident.rule in review_rules.RULES:
        return review_rules.describe(incident)
    if incident.rule == Rule.FX_STALE:
        return fx_rules.describe(incident)
    if incident.rule in sync_descriptions.RULES:
        return sync_descriptions.describe(incident)
    if incident.rule in connection_rules.RULES:
        return connection_rules.describe(incident)
    return event_descriptions.describe(incident)
