"""Notifications about incidents: queued with the flip that causes them, delivered by the task runner to the
brand's users by email and to each of its webhook channels, with retries and a log of every attempt
(docs/alerts.md).

Queueing happens in the flip's transaction (one notification per incident flip, a database constraint);
delivery happens afterwards, outside any transaction, one claimed delivery at a time. A delivery is
claimed by a conditional UPDATE (only one worker's UPDATE matches), which also sets a lease: a worker
that dies mid-send leaves it to be taken up again when the lease ends.
"""

import json
import logging
import secrets
import time
from base64 import b64encode
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import httpcore
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mass_mail
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from health.alerts import outbound
from health.alerts.descriptions import describe
from health.alerts.models import Channel, Delivery, DeliveryAttempt, Incident, Notification

logger = logging.getLogger(__name__)

# Waits before the 2nd, 3rd, 4th and 5th attempt; after the 5th, the delivery is given up.
BACKOFF = [timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2)]
MAX_ATTEMPTS = len(BACKOFF) + 1
LEASE = timedelta(minutes=2)  # longer than any one attempt (the webhook timeout is seconds)
DUE_BATCH = 100
USER_AGENT = "creator-attribution-webhooks/1"
SLACK_HOSTS = ("hooks.slack.com",)


def new_secret() -> str:
    """A Standard Webhooks secret: whsec_ and 24 random bytes in base64."""
    return "whsec_" + b64encode(secrets.token_bytes(24)).decode("ascii")


def format_for(url: str) -> str:
    """The format a URL's receiver expects: Slack's incoming webhooks take {"text": ...}."""
    host = (url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]).lower()
    return Channel.Format.SLACK if host in SLACK_HOSTS else Channel.Format.STANDARD


# --- queueing ----------------------------------------------------------------------------------------


def queue(incident: Incident, kind: str, *, now: datetime, email: bool = True) -> Notification:
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


def send_test(channel: Channel, *, now: datetime | None = None) -> Delivery:
    """A test notification to one channel, attempted at once (retries follow as for any delivery)."""
    now = now or timezone.now()
    with transaction.atomic():
        notification = Notification.objects.create(kind=Notification.Kind.TEST, created_at=now)
        delivery = Delivery.objects.create(
            notification=notification, channel=channel, next_attempt_at=now, created_at=now
        )
    for claimed in _claim([(delivery.pk, now)], now=now):
        _deliver(claimed, now=now)
    delivery.refresh_from_db()
    return delivery


# --- delivering --------------------------------------------------------------------------------------


@dataclass
class DeliverySummary:
    attempted: int = 0
    delivered: int = 0
    retrying: int = 0
    failed: int = 0


def deliver_due(*, now: datetime | None = None, limit: int = DUE_BATCH) -> DeliverySummary:
    """Attempt every delivery that is due (never raises for a bad URL or an unreachable receiver)."""
    now = now or timezone.now()
    # delivery_due_idx: pending deliveries by due time.
    due = list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("pk", "next_attempt_at")[:limit]
    )
    summary = DeliverySummary()
    for delivery in _claim(due, now=now):
        status = _deliver(delivery, now=now)
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


@dataclass
class Attempt:
    ok: bool
    status_code: int | None = None
    error: str = ""
    retry: bool = False
    duration_ms: int = 0


def _deliver(delivery: Delivery, *, now: datetime) -> str:
    try:
        attempt = _send_email(delivery, now) if delivery.channel is None else _send_webhook(delivery, now)
    except Exception as exc:  # a fault in one delivery must not stop the others, nor the evaluation
        logger.exception("notification delivery failed", extra={"delivery_id": delivery.pk})
        attempt = Attempt(False, error=f"internal error ({type(exc).__name__})", retry=True)
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


# --- what a notification says ------------------------------------------------------------------------


def _brand_of(delivery: Delivery):
    incident = delivery.notification.incident
    return incident.brand if incident is not None else (delivery.channel.brand if delivery.channel else None)


def _link(name: str, brand, *, args=(), query: dict | None = None) -> str:
    params = ({"brand": brand.pk} if brand else {}) | (query or {})
    return f"{settings.SITE_URL}{reverse(name, args=args)}{'?' + urlencode(params) if params else ''}"


def message(delivery: Delivery) -> dict:
    """Everything a notification says, in one dict: the webhook payload's data and the email's parts."""
    notification, brand = delivery.notification, _brand_of(delivery)
    incident = notification.incident
    if incident is None:
        return {
            "type": "test",
            "brand": {"id": brand.pk, "name": brand.name} if brand else None,
            "title": "Test notification",
            "text": "A test notification from Creator attribution: this channel receives alerts.",
            "url": _link("health:alerts", brand),
        }
    said = describe(incident)
    flip = "Resolved" if notification.kind == Notification.Kind.RESOLVED else "Opened"
    return {
        "type": f"incident.{notification.kind}",
        "brand": {"id": brand.pk, "name": brand.name} if brand else None,
        "title": f"{flip}: {said.title}",
        "text": said.summary,
        "incident": {
            "id": incident.pk,
            "rule": incident.rule,
            "subject": incident.subject,
            "title": said.title,
            "summary": said.summary,
            "fix": said.fix,
            "opened_at": incident.opened_at.isoformat(),
            "resolved_at": incident.resolved_at.isoformat() if incident.resolved_at else None,
            "counts": incident.counts,
            "url": _link("health:incident", brand, args=[incident.pk])
            if brand
            else f"{settings.SITE_URL}{reverse('health:portfolio')}",
            "events_url": _link("health:events", brand, query=said.events_query) if brand else None,
        },
        "url": _link("health:alerts", brand)
        if brand
        else f"{settings.SITE_URL}{reverse('health:portfolio')}",
    }


def _email_text(said: dict) -> tuple[str, str]:
    who = said["brand"]["name"] if said["brand"] else "Creator attribution"
    subject = f"[{who}] {said['title']}"
    incident = said.get("incident")
    lines = [said["title"], "", said["text"], ""]
    if incident:
        lines.append(f"Opened: {_utc(incident['opened_at'])}")
        if incident["resolved_at"]:
            lines.append(f"Resolved: {_utc(incident['resolved_at'])}")
        lines += ["", f"What to do: {incident['fix']}", "", f"Incident: {incident['url']}"]
        if incident["events_url"]:
            lines.append(f"Matching events: {incident['events_url']}")
        lines.append("")
    lines.append(f"Alert rules and channels: {said['url']}")
    return subject, "\n".join(lines) + "\n"


def _utc(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def recipients(brand) -> list[str]:
    """The brand's active users with an email address; account managers for service-side incidents."""
    users = get_user_model().objects.filter(is_active=True).exclude(email="")
    users = users.filter(brand_memberships__brand=brand) if brand else users.filter(is_staff=True)
    return sorted(set(users.values_list("email", flat=True)))


def _send_email(delivery: Delivery, now: datetime) -> Attempt:
    said = message(delivery)
    to = recipients(_brand_of(delivery))
    if not to:
        return Attempt(False, error="no user to email: add an email address to the brand's users")
    subject, body = _email_text(said)
    started = time.monotonic()
    try:
        send_mass_mail([(subject, body, None, [address]) for address in to], fail_silently=False)
    except OSError as exc:  # SMTP errors are OSErrors; so is a refused connection
        return Attempt(False, error=f"mail not sent: {exc}", retry=True)
    return Attempt(True, error=f"sent to {len(to)} address(es)", duration_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def webhook_request(delivery: Delivery, now: datetime) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a webhook delivery: Standard Webhooks (signed), or Slack's {"text": ...}."""
    said = message(delivery)
    channel = delivery.channel
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    if channel.format == Channel.Format.SLACK:
        link = said["incident"]["url"] if said.get("incident") else said["url"]
        who = f"[{said['brand']['name']}] " if said["brand"] else ""
        body = {"text": f"*{who}{said['title']}*\n{said['text']}\n<{link}|Open in Creator attribution>"}
        return json.dumps(body).encode(), headers
    payload = {"type": said["type"], "timestamp": now.astimezone(UTC).isoformat(), "data": said}
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    # Same id on every attempt, so a receiver can drop a repeat.
    msg_id = f"msg_{delivery.notification_id}"
    headers |= {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(channel.secret).sign(msg_id, now.astimezone(UTC), data),
    }
    return data.encode("utf-8"), headers


def _send_webhook(delivery: Delivery, now: datetime) -> Attempt:
    if not delivery.channel.is_active:
        return Attempt(False, error="not sent: the channel was removed")
    body, headers = webhook_request(delivery, now)
    started = time.monotonic()
    try:
        response = outbound.post(delivery.channel.url, body, headers)
    except outbound.AddressNotAllowed as exc:
        return Attempt(False, error=f"not sent: {exc}")
    except httpcore.TimeoutException:
        return Attempt(False, error="no answer within the timeout", retry=True, duration_ms=_ms(started))
    except (httpcore.UnsupportedProtocol, httpcore.LocalProtocolError) as exc:
        return Attempt(False, error=f"not sent: {exc}")
    except httpcore.NetworkError as exc:  # refused, reset, unresolvable
        return Attempt(False, error=f"connection failed: {exc}", retry=True, duration_ms=_ms(started))
    except httpcore.ProtocolError as exc:
        return Attempt(False, error=f"bad answer: {exc}", retry=True, duration_ms=_ms(started))
    code = response.status
    if 200 <= code < 300:
        return Attempt(True, status_code=code, duration_ms=response.duration_ms)
    retry = code >= 500 or code in (408, 429)
    note = "redirects are not followed: use the final URL" if 300 <= code < 400 else response.body
    return Attempt(False, status_code=code, error=note, retry=retry, duration_ms=response.duration_ms)
