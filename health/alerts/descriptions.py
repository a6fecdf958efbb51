"""What every incident says (title, one-sentence summary, fix, matching events): the review alerts' own
(health.alerts.review_rules), every other rule's from health.alerts.rules. Pages, notifications and the admin
read it here."""

from health.alerts import review_rules, rules
from health.alerts.models import Incident


def describe(incident: Incident) -> rules.Description:
    if incident.rule in review_rules.RULES:
        return review_rules.describe(incident)
    return rules.describe(incident)
