"""Reads behind the alerts pages, the open incidents on the overview and the incident page. Every function
takes the brand (or the brands) health.pages.access allowed."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Prefetch

from brands.models import Brand
from health.alerts.descriptions import describe
from health.alerts.findings import Description
from health.alerts.models import AlertEvaluation, AlertRuleSet, Channel, Delivery, DeliveryAttempt, Incident
from health.alerts.notify.messages import recipients

RECENT_INCIDENTS = 30
ATTEMPTS_SHOWN = 10


@dataclass(frozen=True)
class IncidentView:
    incident: Incident
    said: Description

    @property
    def last_order_at(self) -> datetime | None:
        """A silence's last order before it opened (an aware datetime, for the date filter)."""
        iso = (self.incident.counts or {}).get("last_order_at")
        return datetime.fromisoformat(iso) if iso else None

    @property
    def duration(self) -> timedelta | None:
        i = self.incident
        return i.resolved_at - i.opened_at if i.resolved_at else None


def _views(incidents) -> list[IncidentView]:
    return [IncidentView(i, describe(i)) for i in incidents]


def rule_set_of(brand: Brand) -> AlertRuleSet:
    """The brand's rules, or unsaved defaults."""
    return AlertRuleSet.objects.filter(brand=brand).first() or AlertRuleSet(brand=brand)


def open_incidents(brand: Brand) -> list[IncidentView]:
    # incident_open_idx: the few open incidents.
    return _views(Incident.objects.filter(brand=brand, resolved_at__isnull=True).order_by("-opened_at"))


def recent_incidents(brand: Brand, *, limit: int = RECENT_INCIDENTS) -> list[IncidentView]:
    # incident_brand_time_idx: a brand's incidents, newest first.
    return _views(
        Incident.objects.filter(brand=brand, resolved_at__isnull=False).order_by("-opened_at", "-id")[:limit]
    )


def incident(brands, pk: int) -> Incident | None:
    """One incident, only if it belongs to one of `brands` (service-side incidents have no brand page)."""
    return Incident.objects.select_related("brand").filter(pk=pk, brand__in=brands).first()


def deliveries_of(found: Incident) -> list[Delivery]:
    return list(
        Delivery.objects.filter(notification__incident=found)
        .select_related("notification", "channel")
        .prefetch_related("attempt_log")
        .order_by("notification__created_at", "id")
    )


@dataclass(frozen=True)
class ChannelView:
    channel: Channel
    attempts: list[DeliveryAttempt]  # newest first

    @property
    def last(self) -> DeliveryAttempt | None:
        return self.attempts[0] if self.attempts else None


def channels_of(brand: Brand) -> list[ChannelView]:
    # attempt_channel_time_idx: each channel's last attempts, newest first, in one query for all channels.
    recent = Prefetch(
        "attempts",
        queryset=DeliveryAttempt.objects.select_related("delivery__notification").order_by(
            "-attempted_at", "-id"
        )[:ATTEMPTS_SHOWN],
        to_attr="recent",
    )
    channels = Channel.objects.filter(brand=brand, is_active=True).prefetch_related(recent)
    return [ChannelView(c, c.recent) for c in channels.order_by("created_at", "id")]


def email_log(brand: Brand) -> list[DeliveryAttempt]:
    """The last attempts at emailing the brand's users."""
    return list(
        DeliveryAttempt.objects.filter(channel=None, delivery__notification__incident__brand=brand)
        .select_related("delivery__notification")
        .order_by("-attempted_at", "-id")[:ATTEMPTS_SHOWN]
    )


def channel(brands, pk: int) -> Channel | None:
    return Channel.objects.select_related("brand").filter(pk=pk, brand__in=brands, is_active=True).first()


def email_recipients(brand: Brand) -> list[str]:
    return recipients(brand)


@dataclass(frozen=True)
class WorkerStatus:
    last_run: datetime | None
    late: bool  # no evaluation for a while: the task runner is probably not running


def worker_status(now: datetime) -> WorkerStatus:
    last = AlertEvaluation.objects.values_list("last_finished_at", flat=True).first()
    return WorkerStatus(last, last is None or now - last > timedelta(minutes=5))


def open_service_incidents() -> list[IncidentView]:
    return _views(Incident.objects.filter(brand=None, resolved_at__isnull=True).order_by("-opened_at"))
