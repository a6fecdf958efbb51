"""Notifications about incidents: queued with the flip that causes them, delivered by the task runner to the
brand's users by email and to each of its webhook channels, with retries and a log of every attempt
(docs/alerts.md).

Queueing happens in the flip's transaction (health.alerts.incidents: one notification per incident flip, a
database constraint); delivery happens afterwards, outside any transaction, one claimed delivery at a time.
A delivery is claimed by a conditional UPDATE (only one worker's UPDATE matches), which also sets a lease:
a worker that dies mid-send leaves it to be taken up again when the lease ends.

Each try is a notification attempt, made by the email sender (health.alerts.notify.emails) or the alert
webhook sender (health.alerts.notify.webhooks); what a notification says is health.alerts.notify.messages'.
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from health.alerts.models import Channel, Delivery, DeliveryAttempt, Notification
from health.alerts.notify.attempts import NotificationAttempt
from health.alerts.notify.emails import send_email
from health.alerts.notify.webhooks import send_webhook

logger = logging.getLogger(__name__)

# Waits before the 2nd, 3rd, 4th and 5th attempt; after the 5th, the delivery is given up.
BACKOFF = [timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2)]
MAX_ATTEMPTS = len(BACKOFF) + 1
LEASE = timedelta(minutes=2)  # longer than any one attempt (the webhook timeout is seconds)
DUE_BATCH = 100


# --- a test ------------------------------------------------------------------------------------------


def send_test(channel: Channel, *, now: datetime | None = None) -> Delivery:
    """A test notification to one channel, attempted at once (retries follow as for any delivery)."""
    now = now or timezone.now()
    with transaction.atomic():
        notification = Notification.objects.create(kind=Notification.Kind.TEST, created_at=now)
        delivery = Delivery.objects.create(
            notification=notification, channel=channel, next_attempt_at=now, created_at=now
        )
    for claimed in _claim([(delivery.pk, now)], now=now):
        _attempt(claimed, now=now)
    delivery.refresh_from_db()
    return delivery


# --- delivering --------------------------------------------------------------------------------------


@dataclass
class NotificationSummary:
    attempted: int = 0
    delivered: int = 0
    retrying: int = 0
    failed: int = 0


def deliver_due(*, now: datetime | None = None, limit: int = DUE_BATCH) -> NotificationSummary:
    """Attempt every delivery that is due (never raises for a bad URL or an unreachable receiver)."""
    now = now or timezone.now()
    # delivery_due_idx: pending deliveries by due time.
    due = list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("pk", "next_attempt_at")[:limit]
    )
    summary = NotificationSummary()
    for delivery in _claim(due, now=now):
        status = _attempt(delivery, now=now)
        summary.attempted += 1
        if status == Delivery.Status.DELIVERED:
            summary.delivered += 1
        elif status == Delivery.Status.FAILED:
            summary.failed += 1
        else:
            summary.retrying += 1
    return summary


def _claim(due: list[tuple[int, datetime]], *, now: datetime) -> list[Delivery]:
    claimed = [
        pk
        for pk, due_at in due
        if Delivery.objects.filter(pk=pk, status=Delivery.Status.PENDING, next_attempt_at=due_at).update(
            attempts=F("attempts") + 1, next_attempt_at=now + LEASE
        )
    ]
    return list(
        Delivery.objects.filter(pk__in=claimed)
        .select_related("channel__brand", "notification__incident__brand")
        .order_by("id")
    )


def _attempt(delivery: Delivery, *, now: datetime) -> str:
    """One notification attempt of a claimed delivery, logged; its status after it (retried with backoff)."""
    try:
        attempt = send_email(delivery, now) if delivery.channel is None else send_webhook(delivery, now)
    except Exception as exc:  # a fault in one delivery must not stop the others, nor the evaluation
        logger.exception("notification delivery failed", extra={"delivery_id": delivery.pk})
        attempt = NotificationAttempt(False, error=f"internal error ({type(exc).__name__})", retry=True)
    if attempt.ok:
        status, next_at = Delivery.Status.DELIVERED, None
    elif attempt.retry and delivery.attempts < MAX_ATTEMPTS:
        status, next_at = Delivery.Status.PENDING, now + BACKOFF[delivery.attempts - 1]
    else:
        status, next_at = Delivery.Status.FAILED, None
    with transaction.atomic():
        DeliveryAttempt.objects.create(
            delivery=delivery,
            channel=delivery.channel,
            number=delivery.attempts,
            attempted_at=now,
            ok=attempt.ok,
            status_code=attempt.status_code,
            error=attempt.error[:300],
            duration_ms=attempt.duration_ms,
        )
        Delivery.objects.filter(pk=delivery.pk).update(
            status=status, next_attempt_at=next_at, finished_at=None if next_at else now
        )
    return status
