"""Nothing grows without bound (health/pruning.py; docs/operations.md, "What grows and how it is pruned"):
each growing table loses its rows past its retention, and keeps the rest."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.sessions.models import Session
from django.utils import timezone
from django_q.models import Failure, Task

from attribution.models import (
    BookRow,
    Click,
    DeadLetter,
    PlatformDelivery,
    Reconciliation,
    SpoolBacklog,
    SpoolReplay,
)
from brands.models import KeyHandover, PlatformConnection
from health import tasks
from health.alerts.models import Channel, Delivery, DeliveryAttempt, Incident, Notification
from health.pruning import prune_tables
from tests import factories

pytestmark = pytest.mark.django_db

NOW = timezone.now()
OLD = NOW - timedelta(days=400)


def incident_with_history(brand, *, resolved_at):
    incident = Incident.objects.create(brand=brand, rule="silence", opened_at=OLD, resolved_at=resolved_at)
    channel = Channel.objects.get_or_create(
        brand=brand, url="https://hooks.example.com/x", defaults={"secret": "s"}
    )[0]
    notification = Notification.objects.create(incident=incident, kind="opened", created_at=OLD)
    delivery = Delivery.objects.create(notification=notification, channel=channel, status="delivered")
    DeliveryAttempt.objects.create(delivery=delivery, channel=channel, attempted_at=OLD, number=1)
    return incident


def test_resolved_incidents_go_after_180_days_with_their_notifications_deliveries_and_attempts(brand):
    incident_with_history(brand, resolved_at=NOW - timedelta(days=181))
    kept = incident_with_history(brand, resolved_at=NOW - timedelta(days=10))
    still_open = incident_with_history(brand, resolved_at=None)

    prune_tables(now=NOW)

    assert set(Incident.objects.values_list("pk", flat=True)) == {kept.pk, still_open.pk}
    assert Notification.objects.count() == Delivery.objects.count() == DeliveryAttempt.objects.count() == 2


def test_old_test_notifications_go_too(brand):
    Notification.objects.create(kind="test", created_at=OLD)
    Notification.objects.create(kind="test", created_at=NOW)

    prune_tables(now=NOW)

    assert Notification.objects.count() == 1


def test_spool_ledger_rows_go_after_30_days(brand):
    SpoolReplay.objects.create(
        spool_id="a" * 32,
        endpoint="order_confirmation",
        received_at=OLD,
        replayed_at=NOW - timedelta(days=31),
        outcome="tracked",
    )
    SpoolReplay.objects.create(
        spool_id="b" * 32, endpoint="order_confirmation", received_at=OLD, replayed_at=NOW, outcome="tracked"
    )

    prune_tables(now=NOW)

    assert list(SpoolReplay.objects.values_list("spool_id", flat=True)) == ["b" * 32]


def test_the_spool_backlog_of_a_server_silent_for_a_week_goes(db):
    SpoolBacklog.objects.create(server="gone:/var/spool", checked_at=NOW - timedelta(days=8))
    SpoolBacklog.objects.create(server="here:/var/spool", checked_at=NOW - timedelta(minutes=1))

    prune_tables(now=NOW)

    assert list(SpoolBacklog.objects.values_list("server", flat=True)) == ["here:/var/spool"]


def test_dead_letters_go_after_400_days(db):
    for spool_id, failed_at in (("c" * 32, NOW - timedelta(days=401)), ("d" * 32, NOW)):
        DeadLetter.objects.create(
            spool_id=spool_id,
            kind="event",
            endpoint="order_confirmation",
            received_at=OLD,
            reason="x",
            failed_at=failed_at,
        )

    prune_tables(now=NOW)

    assert list(DeadLetter.objects.values_list("spool_id", flat=True)) == ["d" * 32]


def test_platform_delivery_ids_go_after_30_days(prop):
    connection = PlatformConnection(
        brand=prop.brand, property=prop, platform="shopify", shop_domain="acme-demo.myshopify.com"
    )
    connection.set_secret("s")
    connection.save()
    for delivery_id, received_at in (("old", NOW - timedelta(days=31)), ("new", NOW - timedelta(days=29))):
        PlatformDelivery.objects.create(
            brand_id=connection.brand_id,
            connection=connection,
            delivery_id=delivery_id,
            received_at=received_at,
        )

    prune_tables(now=NOW)

    assert list(PlatformDelivery.objects.values_list("delivery_id", flat=True)) == ["new"]


def test_failed_background_tasks_go_after_30_days_and_successes_stay(db):
    for name, stopped, success in (
        ("old", NOW - timedelta(days=31), False),
        ("new", NOW, False),
        ("ok", OLD, True),
    ):
        Task.objects.create(
            id=name * 4, name=name, func="f", started=stopped, stopped=stopped, success=success
        )

    prune_tables(now=NOW)

    assert set(Task.objects.values_list("name", flat=True)) == {"new", "ok"}
    assert Failure.objects.count() == 1


def test_expired_sessions_go(db):
    Session.objects.create(session_key="expired", session_data="", expire_date=NOW - timedelta(seconds=1))
    Session.objects.create(session_key="alive", session_data="", expire_date=NOW + timedelta(days=1))

    prune_tables(now=NOW)

    assert list(Session.objects.values_list("session_key", flat=True)) == ["alive"]


def test_sign_in_and_lockout_records_go_after_90_days(db):
    for model, extra in (
        (AccessLog, {}),
        (AccessFailureLog, {}),
        (AccessAttempt, {"failures_since_start": 1}),
    ):
        for days in (91, 10):
            row = model.objects.create(username=f"u{days}", ip_address="192.0.2.1", user_agent="", **extra)
            # attempt_time is auto_now_add: set it afterwards, as the rows would have aged.
            model.objects.filter(pk=row.pk).update(attempt_time=NOW - timedelta(days=days))

    prune_tables(now=NOW)

    for model in (AccessLog, AccessFailureLog, AccessAttempt):
        assert list(model.objects.values_list("username", flat=True)) == ["u10"]


def test_clicks_go_180_days_after_their_brands_window_closed_unless_an_order_links_them(prop):
    window = prop.brand.attribution_window_days  # 30
    gone = factories.ClickFactory(property=prop, clicked_at=NOW - timedelta(days=window + 181))
    attributed = factories.ClickFactory(property=prop, clicked_at=NOW - timedelta(days=window + 300))
    factories.OrderFactory(brand=prop.brand, click=attributed)
    kept = factories.ClickFactory(property=prop, clicked_at=NOW - timedelta(days=window + 179))
    long_window = factories.BrandFactory(attribution_window_days=90)
    within_its_window = factories.ClickFactory(
        property=factories.PropertyFactory(brand=long_window, host="long.example"),
        clicked_at=NOW - timedelta(days=window + 181),
    )

    prune_tables(now=NOW)

    assert set(Click.objects.values_list("pk", flat=True)) == {attributed.pk, kept.pk, within_its_window.pk}
    assert not Click.objects.filter(pk=gone.pk).exists()


def reconciliation_with_rows(brand, *, created_at, rows=3, **fields):
    run = Reconciliation.objects.create(
        brand=brand,
        created_at=created_at,
        format="generic",
        order_id_column="order_id",
        amount_column="amount",
        **fields,
    )
    BookRow.objects.bulk_create(
        BookRow(brand=brand, reconciliation=run, line=line, order_id=f"B-{line}", status="missing")
        for line in range(2, 2 + rows)
    )
    return run


def test_reconciliations_go_after_90_days_with_their_book_rows(brand):
    reconciliation_with_rows(brand, created_at=NOW - timedelta(days=91))
    kept = reconciliation_with_rows(brand, created_at=NOW - timedelta(days=89))
    applying = reconciliation_with_rows(brand, created_at=OLD, apply_started_at=NOW - timedelta(days=1))

    deleted = prune_tables(now=NOW)

    assert deleted["reconciliations of order books with their book rows"] == 4  # a run and its three rows
    assert set(Reconciliation.objects.values_list("pk", flat=True)) == {kept.pk, applying.pk}
    assert set(BookRow.objects.values_list("reconciliation_id", flat=True)) == {kept.pk, applying.pk}


def test_key_handovers_go_after_a_day_with_the_keys_they_hold(prop):
    for site, created_at in (("https://old.example", NOW - timedelta(days=2)), ("https://new.example", NOW)):
        handover = KeyHandover(
            brand=prop.brand, property=prop, site_url=site, scope="read", created_at=created_at
        )
        handover.keep_keys(credential='{"consumer_key": "ck"}', secret="", site_timezone="")
        handover.save()

    prune_tables(now=NOW)

    assert list(KeyHandover.objects.values_list("site_url", flat=True)) == ["https://new.example"]


def test_each_retention_is_a_setting(db, settings):
    settings.RETENTION_DAYS = {**settings.RETENTION_DAYS, "spool_ledger": 1}
    SpoolReplay.objects.create(
        spool_id="e" * 32,
        endpoint="x",
        received_at=OLD,
        replayed_at=NOW - timedelta(days=2),
        outcome="tracked",
    )

    prune_tables(now=NOW)

    assert not SpoolReplay.objects.exists()


def test_the_daily_task_says_what_it_pruned(db):
    assert tasks.prune_growing_tables().startswith("Pruned 0 resolved incidents")
