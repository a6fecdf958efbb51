"""Nothing grows without bound (docs/operations.md, "What grows and how it is pruned"): every table that grows
with traffic and is not the brand's business record has a retention, a setting with a default, and one
entry here. The daily task `prune_tables` runs them all; each is one or a few bulk DELETEs by an indexed
time, safe to run twice at once.

The outcome log, its hourly counts, the unknown-host counts and the throttle counters have their own
prune (`prune_outcomes`: health.log.retention drops whole months). Orders, commissions, statements and
their histories are the brands' billing records and are never pruned, and neither is a click that
attributed an order (the order links to it). A new growing table adds one `Prune` to PRUNES and a line
to the operations table.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone
from django_q.models import Failure

from attribution.models import (
    BookRow,
    Click,
    DeadLetter,
    PlatformDelivery,
    Reconciliation,
    SpoolBacklog,
    SpoolReplay,
    SyncedOrder,
    SyncRun,
)
from brands.models import Brand, KeyHandover
from health.alerts.models import Incident, Notification

CLICK_BATCH = 10_000


@dataclass(frozen=True)
class Prune:
    name: str  # what goes, as the task's summary says it
    setting: str  # the retention in days, settings.RETENTION_DAYS[setting]
    delete: Callable[[datetime], int]  # deletes what is older than the cutoff; how many rows went


def _alert_history(cutoff: datetime) -> int:
    # Resolved incidents go with their notifications, deliveries and attempts (cascades); test
    # notifications, which have no incident, by their own time.
    incidents, _ = Incident.objects.filter(resolved_at__lt=cutoff).delete()
    tests, _ = Notification.objects.filter(incident__isnull=True, created_at__lt=cutoff).delete()
    return incidents + tests


def _spool_ledger(cutoff: datetime) -> int:
    # A replayed file is deleted when its replay commits; its ledger row only guards a second run of the
    # same file, which cannot come weeks later.
    return SpoolReplay.objects.filter(replayed_at__lt=cutoff).delete()[0]


def _vanished_spools(cutoff: datetime) -> int:
    # A server that has not reported its spool for this long is gone (its backlog would show forever).
    return SpoolBacklog.objects.filter(checked_at__lt=cutoff).delete()[0]


def _dead_letters(cutoff: datetime) -> int:
    return DeadLetter.objects.filter(failed_at__lt=cutoff).delete()[0]


def _platform_deliveries(cutoff: datetime) -> int:
    # A delivery's id only guards against a copy of it: Shopify retries for about 4 hours. A copy arriving
    # after its id went finds its order already received (already_received), so it still changes nothing.
    return PlatformDelivery.objects.filter(received_at__lt=cutoff).delete()[0]


def _failed_tasks(cutoff: datetime) -> int:
    # django-q keeps at most Q_CLUSTER["save_limit"] successful tasks itself, but every failure.
    return Failure.objects.filter(stopped__lt=cutoff).delete()[0]


def _reconciliations(cutoff: datetime) -> int:
    # A run with its book rows: one DELETE per run (up to 200,000 rows, by book_row_line_unique), so none
    # outlasts the statement timeout, then the runs by reconciliation_time_idx. The orders and commission
    # changes an apply made stay: they are the brand's records, and their outcome rows name the run.
    # A run still being applied is left to finish.
    old = Reconciliation.objects.filter(created_at__lt=cutoff).exclude(
        apply_started_at__isnull=False, applied_at__isnull=True
    )
    deleted = 0
    for pk in old.values_list("pk", flat=True).iterator():
        deleted += BookRow.objects.filter(reconciliation_id=pk).delete()[0]
        deleted += Reconciliation.objects.filter(pk=pk).delete()[0]
    return deleted


def _sync_runs(cutoff: datetime) -> int:
    # A shop's finished syncs with the orders they read (one row per order: as many as the orders), a run at a
    # time so no DELETE outlasts the statement timeout. The days' capture figures stay (one row a shop and day).
    old = SyncRun.objects.filter(started_at__lt=cutoff).exclude(status=SyncRun.Status.RUNNING)
    deleted = 0
    for pk in old.values_list("pk", flat=True).iterator():
        deleted += SyncedOrder.objects.filter(run_id=pk).delete()[0]
        deleted += SyncRun.objects.filter(pk=pk).delete()[0]
    return deleted


def _key_handovers(cutoff: datetime) -> int:
    # A handover is refused an hour after it started; one never confirmed holds a site's keys, sealed, until then.
    return KeyHandover.objects.filter(created_at__lt=cutoff).delete()[0]


def _expired_sessions(cutoff: datetime) -> int:
    return Session.objects.filter(expire_date__lt=cutoff).delete()[0]


def _sign_in_records(cutoff: datetime) -> int:
    # django-axes writes a row per sign-in and per failure; the lockout only reads the last hours.
    return sum(
        model.objects.filter(attempt_time__lt=cutoff).delete()[0]
        for model in (AccessLog, AccessFailureLog, AccessAttempt)
    )


def _unused_clicks(cutoff: datetime) -> int:
    # A click can attribute an order only within its brand's window, so it goes once that window has been
    # closed for the retention (which leaves a reconciliation, judging a book order at its order time,
    # months to find it). A click that attributed an order stays: the order links to it. Clicks come by
    # the million, so they go a batch at a time, each DELETE short.
    deleted = 0
    for window in Brand.objects.values_list("attribution_window_days", flat=True).distinct():
        stale = Click.objects.filter(
            brand__attribution_window_days=window,
            clicked_at__lt=cutoff - timedelta(days=window),
            orders__isnull=True,
        )
        while ids := list(stale.values_list("pk", flat=True)[:CLICK_BATCH]):
            deleted += Click.objects.filter(pk__in=ids, orders__isnull=True).delete()[0]
    return deleted


PRUNES = [
    Prune(
        "resolved incidents with their notifications, deliveries and attempts",
        "alert_history",
        _alert_history,
    ),
    Prune("spool replay ledger rows", "spool_ledger", _spool_ledger),
    Prune("spool backlogs of servers that stopped reporting", "vanished_spools", _vanished_spools),
    Prune("dead letters", "dead_letters", _dead_letters),
    Prune("storefront platforms' delivery ids", "platform_deliveries", _platform_deliveries),
    Prune("failed background tasks", "failed_tasks", _failed_tasks),
    Prune("expired sign-in sessions", "expired_sessions", _expired_sessions),
    Prune("sign-in and lockout records", "sign_in_records", _sign_in_records),
    Prune("clicks past their brand's window that attributed no order", "unused_clicks", _unused_clicks),
    Prune("reconciliations of order books with their book rows", "reconciliations", _reconciliations),
    Prune("shops' syncs with the orders they read", "sync_runs", _sync_runs),
    Prune("WooCommerce key handovers", "key_handovers", _key_handovers),
]


def prune_tables(*, now: datetime | None = None) -> dict[str, int]:
    """Run every prune; rows deleted by name (a cascade's rows included)."""
    now = now or timezone.now()
    return {p.name: p.delete(now - timedelta(days=settings.RETENTION_DAYS[p.setting])) for p in PRUNES}
