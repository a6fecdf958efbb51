"""Two workers evaluating or delivering at the same moment (PostgreSQL): one incident, one notification per
flip, one request to the receiver. Each test holds both workers at the critical step and releases them
together, so a "check, then insert" implementation would notify twice."""

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from health.alerts import evaluation as alerts
from health.alerts.evaluation import evaluate
from health.alerts.models import Channel, DeliveryAttempt, Incident, Notification
from health.alerts.notify import notifications, webhooks
from tests.attribution.concurrently import run_together
from tests.health.alerting import T0, log

pytestmark = pytest.mark.django_db(transaction=True)

LATER = T0 + timedelta(hours=2)


def hold_at(monkeypatch, module, name, parties=2):
    """Make `module.name` wait until `parties` callers reached it, then let them all through."""
    barrier = threading.Barrier(parties, timeout=10)
    real = getattr(module, name)

    def held(*args, **kwargs):
        barrier.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, held)


def test_two_evaluations_at_once_open_one_incident_and_notify_once(postgres_only, busy):
    results = run_together(lambda: evaluate(now=LATER), lambda: evaluate(now=LATER))

    assert sum(len(r.opened) for r in results) == 1
    assert Incident.objects.count() == 1
    assert list(Notification.objects.values_list("kind", flat=True)) == ["opened"]


def test_overlapping_evaluations_that_both_decide_to_open_still_notify_once(postgres_only, busy, monkeypatch):
    # As if a lease ran out mid-run: both have read the facts and both try to open the incident.
    hold_at(monkeypatch, alerts, "open_incident")

    results = run_together(
        lambda: evaluate(now=LATER, exclusive=False), lambda: evaluate(now=LATER, exclusive=False)
    )

    assert sorted(len(r.opened) for r in results) == [0, 1]
    assert Incident.objects.count() == 1
    assert Notification.objects.count() == 1


def test_overlapping_evaluations_that_both_decide_to_resolve_notify_once(postgres_only, busy, monkeypatch):
    incident = evaluate(now=LATER).opened[0]
    log(busy, at=LATER + timedelta(minutes=1))
    hold_at(monkeypatch, alerts, "resolve")

    run_together(
        lambda: evaluate(now=LATER + timedelta(minutes=2), exclusive=False),
        lambda: evaluate(now=LATER + timedelta(minutes=2), exclusive=False),
    )

    assert sorted(Notification.objects.filter(incident=incident).values_list("kind", flat=True)) == [
        "opened",
        "resolved",
    ]


def test_two_workers_delivering_at_once_send_each_notification_once(
    postgres_only, busy, receiver, monkeypatch
):
    hook = Channel.objects.create(brand=busy, url=receiver.url, secret=webhooks.new_secret())
    evaluate(now=LATER)
    hold_at(monkeypatch, notifications, "_claim")  # both have read the same due deliveries
    now = timezone.now()

    run_together(lambda: notifications.deliver_due(now=now), lambda: notifications.deliver_due(now=now))

    assert len(receiver.requests) == 1
    assert DeliveryAttempt.objects.filter(channel=hook).count() == 1
