"""Alert evaluation (docs/alerts.md): reads the facts of every active brand, opens an incident for each
rule whose condition holds and resolves those whose condition cleared, each flip with its notification
queued in the same transaction. The task runner runs it every minute (health.tasks).

Two evaluations at once are safe: a lease row lets one run at a time, and if two ever overlap (a lease
outlived), the database still allows one open incident per rule (incident_one_open_per_rule) and one
notification per flip (notification_once_per_flip), and a resolve applies only to a still-open incident.
"""

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from brands.models import Brand
from health.alerts.connections import rules as connection_rules
from health.alerts.events.facts import read_facts
from health.alerts.events.rules import check_service, cleared, findings, is_enabled, service_cleared
from health.alerts.fx import rules as fx_rules
from health.alerts.incidents import open_incident, resolve
from health.alerts.models import AlertEvaluation, AlertRuleSet, Incident
from health.alerts.review import rules as review_rules
from health.alerts.review.facts import read_review_facts
from health.log.rollup import roll_up

logger = logging.getLogger(__name__)

LEASE = timedelta(minutes=5)  # far above a run's duration (bench/health_pages.py: 1,000 brands)
EVALUATION_PK = 1
ROLLUP_BATCHES = 20  # the roll-up has its own schedule; this only keeps the tail short


@dataclass
class EvaluationResult:
    brands: int = 0
    opened: list = field(default_factory=list)
    resolved: list = field(default_factory=list)
    skipped: bool = False  # another evaluation holds the lease


def evaluate(*, now: datetime | None = None, exclusive: bool = True) -> EvaluationResult:
    """Evaluate every rule of every active brand, and the service-side rule, at `now`."""
    now = now or timezone.now()
    started = time.monotonic()
    if exclusive and not _take_lease(now):
        return EvaluationResult(skipped=True)
    result = EvaluationResult()
    try:
        try:
            roll_up(now=now, wait=False, max_batches=ROLLUP_BATCHES)
        except DatabaseError:  # the facts stay exact without it: the unrolled tail is read as well
            logger.warning("roll-up before alert evaluation failed", exc_info=True)
        rule_sets = {r.brand_id: r for r in AlertRuleSet.objects.all()}
        facts, service = read_facts(Brand.objects.filter(is_active=True), rule_sets, now=now)
        review = read_review_facts(list(facts), now=now)
        disconnected = connection_rules.read(facts)
        result.brands = len(facts)
        open_incidents = list(Incident.objects.filter(resolved_at__isnull=True).order_by("id"))
        for incident in open_incidents:
            rules = rule_sets.get(incident.brand_id) or AlertRuleSet()
            if incident.rule == Incident.Rule.FX_STALE:
                done = fx_rules.cleared(service, now, stale_days=settings.FX_RATES_STALE_DAYS)
            elif incident.brand_id is None:
                done = service_cleared(service, now)
            else:
                brand_facts = facts.get(incident.brand_id)  # None: the brand was deactivated
                if brand_facts is None:
                    done = True
                elif incident.rule in connection_rules.RULES:
                    done = connection_rules.cleared(incident, disconnected.get(incident.brand_id, {}))
                elif incident.rule in review_rules.RULES:  # the holds and the review figures' outliers
                    done = not review_rules.is_enabled(rules, incident.rule) or review_rules.cleared(
                        incident, review[incident.brand_id]
                    )
                else:
                    done = not is_enabled(rules, incident.rule) or cleared(incident, rules, brand_facts)
            if done and resolve(incident, now=now, email=rules.email_enabled):
                result.resolved.append(incident)
        open_keys = {(i.brand_id, i.rule, i.subject) for i in open_incidents}
        found = [
            (brand_id, finding, (rule_sets.get(brand_id) or AlertRuleSet()).email_enabled)
            for brand_id, brand_facts in facts.items()
            for finding in [
                *findings(rule_sets.get(brand_id) or AlertRuleSet(), brand_facts, now),
                *review_rules.findings(rule_sets.get(brand_id) or AlertRuleSet(), review[brand_id], now),
                *connection_rules.findings(disconnected.get(brand_id, {})),
            ]
        ]
        if (service_finding := check_service(service, now)) is not None:
            found.append((None, service_finding, True))
        if (stale := fx_rules.check(service, now, stale_days=settings.FX_RATES_STALE_DAYS)) is not None:
            found.append((None, stale, True))
        for brand_id, finding, email in found:
            if (brand_id, finding.rule, finding.subject) in open_keys:
                continue
            incident = open_incident(brand_id=brand_id, finding=finding, now=now, email=email)
            if incident is not None:
                result.opened.append(incident)
    finally:
        if exclusive:
            _release(now, result, started)
    return result


def _take_lease(now: datetime) -> bool:
    if not AlertEvaluation.objects.filter(pk=EVALUATION_PK).exists():
        try:
            with transaction.atomic():
                AlertEvaluation.objects.create(pk=EVALUATION_PK)
        except IntegrityError:  # created by a racing first run
            pass
    free = Q(running_until__isnull=True) | Q(running_until__lt=now)
    return (
        AlertEvaluation.objects.filter(free, pk=EVALUATION_PK).update(
            running_until=now + LEASE, last_started_at=now
        )
        == 1
    )


def _release(now: datetime, result: EvaluationResult, started: float) -> None:
    AlertEvaluation.objects.filter(pk=EVALUATION_PK).update(
        running_until=None,
        last_finished_at=now,
        last_brands=result.brands,
        last_duration_ms=int((time.monotonic() - started) * 1000),
    )
