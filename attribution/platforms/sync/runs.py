"""A sync run's life in the database: its window, its start (or the take-over of a run whose runner died), the
lease its runner renews with each page's checkpoint, and its end (docs/decisions.md, "The nightly sync").

Never two runs of one shop at once, whatever the runners and machines: a run is an INSERT of a `running` row,
which the partial unique key sync_run_one_running_per_connection lets only one of two racing runners make.
While a run is running, its runner renews `lease_until` with every page; a running run whose lease ran out
belongs to a runner that died, and the next runner takes it over (a conditional UPDATE only one runner wins)
and carries on from its cursor.
"""

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum

from attribution.models import SyncedOrder, SyncRun
from brands.models import PlatformConnection

# Each nightly window starts this long before the last one ended (the last run's start), so an order changed
# while that run read its pages, or whose platform wrote its updated_at late, is read again (idempotent).
OVERLAP = timedelta(hours=1)
# A connection's first sync reads this far back.
FIRST_WINDOW = timedelta(days=7)
# A runner that holds a run renews its lease with every page; one silent this long has died.
LEASE = timedelta(minutes=5)
DAY = timedelta(hours=24)  # the span SYNC_MAX_PAGES_PER_DAY counts a shop's pages over


def runner_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:128]


@dataclass(frozen=True)
class Started:
    """What `begin` found: the run to carry on (new, or taken over), or the run another runner holds."""

    run: SyncRun | None
    busy: SyncRun | None = None  # running elsewhere, its lease alive: nothing to do now
    resumed: bool = False  # taken over from a runner that died


def next_window_start(connection: PlatformConnection, *, until: datetime) -> datetime:
    """The last finished following-on run's start (its window's end) less the overlap; before any finished, the
    first window tried (a first run that failed is read again whole); FIRST_WINDOW back for the very first."""
    # sync_run_connection_time_idx: the connection's runs, newest first.
    runs = SyncRun.objects.filter(connection=connection, follows_on=True)
    last = (
        runs.filter(status=SyncRun.Status.DONE)
        .order_by("-started_at")
        .values_list("window_end", flat=True)
        .first()
    )
    if last is not None:
        start = last - OVERLAP
    else:
        tried = runs.order_by("started_at").values_list("window_start", flat=True).first()
        start = tried if tried is not None else until - FIRST_WINDOW
    return min(start, until - timedelta(minutes=1))


def begin(
    connection: PlatformConnection,
    *,
    trigger: str,
    now: datetime,
    since: datetime | None = None,
    until: datetime | None = None,
    runner: str = "",
) -> Started:
    """Start a run of `connection`, or take over its running run whose runner died, or say which run is busy."""
    runner = runner or runner_name()
    taken = _take_over(connection, now=now, runner=runner)
    if taken is not None:
        return Started(taken, resumed=True)
    end = until or now
    start = since or next_window_start(connection, until=end)
    try:
        with transaction.atomic():
            run = SyncRun.objects.create(
                brand_id=connection.brand_id,
                connection=connection,
                trigger=trigger,
                follows_on=since is None and until is None,
                window_start=start,
                window_end=end,
                started_at=now,
                lease_until=now + LEASE,
                runner=runner,
            )
    except IntegrityError:
        busy = SyncRun.objects.filter(connection=connection, status=SyncRun.Status.RUNNING).first()
        return Started(None, busy=busy)
    return Started(run)


def _take_over(connection: PlatformConnection, *, now: datetime, runner: str) -> SyncRun | None:
    """The connection's running run if its lease ran out, now this runner's; None when there is none to take."""
    stale = SyncRun.objects.filter(
        connection=connection, status=SyncRun.Status.RUNNING, lease_until__lt=now
    ).values_list("pk", flat=True)
    for pk in stale:
        # Only one of two runners taking it over at once matches the old lease.
        taken = SyncRun.objects.filter(pk=pk, status=SyncRun.Status.RUNNING, lease_until__lt=now).update(
            lease_until=now + LEASE, runner=runner
        )
        if taken:
            return SyncRun.objects.get(pk=pk)
    return None


class LeaseLost(Exception):
    """Another runner took the run over (this one was silent past its lease): this runner stops."""


def checkpoint(run: SyncRun, *, cursor: str, counts: dict, now: datetime) -> None:
    """After a page: where the next one starts, the figures added, the lease renewed; raises LeaseLost when
    another runner holds the run now (what this page did stands: it is idempotent)."""
    updates = {name: F(name) + n for name, n in counts.items() if n}
    done = SyncRun.objects.filter(pk=run.pk, status=SyncRun.Status.RUNNING, runner=run.runner).update(
        cursor=cursor[:512], pages=F("pages") + 1, lease_until=now + LEASE, **updates
    )
    if not done:
        raise LeaseLost(f"sync run {run.pk} is held by another runner")
    run.refresh_from_db()


def note(run: SyncRun, *, kind: str, text: str, now: datetime, **fields) -> None:
    """Keep an error or a finding on the run (a short list: the history page shows it)."""
    run.errors = [*run.errors, {"at": now.isoformat(), "kind": kind, "text": text}][-50:]
    SyncRun.objects.filter(pk=run.pk).update(errors=run.errors, **fields)
    for name, value in fields.items():
        setattr(run, name, value)


def finish(run: SyncRun, *, status: str, now: datetime) -> bool:
    """End a run this runner holds; False when another runner holds it now. Its `recovered` is the orders it
    listed (a run taken over read its crashed page again, where its order recorded counts as held)."""
    recovered = SyncedOrder.objects.filter(run_id=run.pk, path=SyncedOrder.Path.SYNC).count()
    done = SyncRun.objects.filter(pk=run.pk, status=SyncRun.Status.RUNNING, runner=run.runner).update(
        status=status, finished_at=now, lease_until=None, recovered=recovered
    )
    if done:
        run.status, run.finished_at, run.recovered = status, now, recovered
    return bool(done)


def unreported() -> list[int]:
    """Finished runs whose incidents are not opened yet (health opens them on signals.sync_run_finished)."""
    return list(
        SyncRun.objects.filter(~Q(status=SyncRun.Status.RUNNING), reported=False)
        .order_by("pk")
        .values_list("pk", flat=True)[:500]
    )


def pages_since(connection: PlatformConnection, *, since: datetime) -> int:
    """The pages the connection's runs started since `since` have read (SYNC_MAX_PAGES_PER_DAY)."""
    # sync_run_connection_time_idx: the connection's runs by start.
    runs = SyncRun.objects.filter(connection=connection, started_at__gte=since)
    return runs.aggregate(pages=Sum("pages"))["pages"] or 0
