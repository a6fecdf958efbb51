"""An incident's two flips, opened and resolved, each with its notification queued in the same transaction
(one delivery per target, delivered later by health.alerts.notify.notifications). The alert evaluation and
the sync's run (health.alerts.sync.incidents) flip incidents here."""

from datetime import datetime

from django.db import IntegrityError, transaction

from health.alerts.findings import Finding
from health.alerts.models import Channel, Delivery, Incident, Notification


def open_incident(*, brand_id: int | None, finding: Finding, now: datetime, email: bool) -> Incident | None:
    """Open an incident and queue its notification; None when another evaluation opened it first."""
    try:
        with transaction.atomic():
            incident = Incident.objects.create(
                brand_id=brand_id,
                rule=finding.rule,
                subject=finding.subject,
                opened_at=now,
                counts=finding.counts,
            )
            queue_notification(incident, Notification.Kind.OPENED, now=now, email=email)
    except IntegrityError:
        return None
    return incident


def resolve(incident: Incident, *, now: datetime, email: bool) -> bool:
    """Resolve an open incident and queue its notification; False when it was resolved meanwhile."""
    at = max(now, incident.opened_at)
    with transaction.atomic():
        if Incident.objects.filter(pk=incident.pk, resolved_at__isnull=True).update(resolved_at=at) != 1:
            return False
        incident.resolved_at = at
        queue_notification(incident, Notification.Kind.RESOLVED, now=now, email=email)
    return True


def queue_notification(incident: Incident, kind: str, *, now: datetime, email: bool = True) -> Notification:
    """The notification of an incident flip and a delivery per target; call inside the flip's transaction."""
    notification = Notification.objects.create(incident=incident, kind=kind, created_at=now)
    channels = Channel.objects.filter(is_active=True)
    channels = (
        channels.filter(brand_id=incident.brand_id) if incident.brand_id else channels.filter(brand=None)
    )
    targets = ([None] if email else []) + list(channels)
    Delivery.objects.bulk_create(
        [Delivery(notification=notification, channel=c, next_attempt_at=now, created_at=now) for c in targets]
    )
    return notification
