"""What a notification says, in one dict for every target (the webhook payload's data, the email's parts),
and who receives its email."""

from datetime import UTC, datetime
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from health.alerts.descriptions import describe
from health.alerts.models import Delivery, Notification


def brand_of(delivery: Delivery):
    incident = delivery.notification.incident
    return incident.brand if incident is not None else (delivery.channel.brand if delivery.channel else None)


def _link(name: str, brand, *, args=(), query: dict | None = None) -> str:
    params = ({"brand": brand.pk} if brand else {}) | (query or {})
    return f"{settings.SITE_URL}{reverse(name, args=args)}{'?' + urlencode(params) if params else ''}"


def message(delivery: Delivery) -> dict:
    """Everything a notification says, in one dict: the webhook payload's data and the email's parts."""
    notification, brand = delivery.notification, brand_of(delivery)
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


def email_text(said: dict) -> tuple[str, str]:
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
