"""The sync of one connection (docs/integration.md, "The nightly sync"): start a run, or take over the run of a
runner that died, check the shop's webhooks, read the window's orders page by page and act on each page
(sync.acting), checkpointing after each so that a crash resumes from the last page, then measure the days'
capture. What it found is on the run (attribution.models.SyncRun); health opens the incidents it calls for.

Between pages, while its machine is busy, the sync rests SYNC_PAUSE_RATIO times the page's own time, so that the
live order path beside it keeps its latency (sync.pace). A run reads for `seconds` at most: a run with pages left
hands its lease back and says so (`unfinished`), and the task runner carries it on (health.tasks.sync_connection).
"""

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from attribution.models import SyncRun
from brands.models import PlatformConnection

from ..apis.errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable
from ..connect.privacy import disconnect
from . import capture, runs
from .acting import PageActor, SyncFault
from .pace import Pace
from .sources import source_for

logger = logging.getLogger(__name__)

SECONDS = 200.0  # below the task runner's timeout (config/task_runner.py: 240 s)


@dataclass
class Synced:
    """What one call did: the run (None when none started), or why nothing ran."""

    run: SyncRun | None = None
    busy: SyncRun | None = None  # another runner holds the connection's run
    resumed: bool = False  # this call took over a run whose runner had died
    unfinished: bool = False  # pages left: the lease is handed back, the next call carries on
    not_synced: str = ""  # why the connection cannot be synced
    captures: list = field(default_factory=list)  # the days' capture rows it measured


def sync_connection(
    connection_id: int,
    *,
    trigger: str,
    since: datetime | None = None,
    until: datetime | None = None,
    sleep=time.sleep,
    clock=timezone.now,
    seconds: float | None = None,
    runner: str = "",
    pause=time.sleep,
) -> Synced:
    """Sync `connection_id`'s orders of the window (the next nightly window unless `since`/`until` say)."""
    connection = PlatformConnection.objects.select_related("property", "brand").get(pk=connection_id)
    if not connection.can_sync():
        return Synced(not_synced=_why_not(connection))
    started = runs.begin(connection, trigger=trigger, now=clock(), since=since, until=until, runner=runner)
    if started.run is None:
        return Synced(busy=started.busy)
    run = started.run
    synced = Synced(run=run, resumed=started.resumed)
    budget = SECONDS if seconds is None else seconds
    began = time.monotonic()
    source = source_for(connection, run, sleep=sleep)
    actor = PageActor(run=run, connection=connection, platform=source.platform, shape=source.shape)
    pace = Pace(ratio=settings.SYNC_PAUSE_RATIO, busy_share=settings.SYNC_BUSY_CPU_SHARE)
    days: set = set()
    try:
        if not run.pages:  # once a run: the webhooks' health (not again when a run is carried on)
            source.check_webhooks(run, now=clock())
        while True:
            page_began = time.monotonic()
            page = source.reader.page(run.cursor)
            source.note_version(run, now=clock())
            # A page's changes and its checkpoint commit together: a crash leaves the page undone and the cursor
            # before it, so the run carries on from that page, and one commit a page, not one an order.
            with transaction.atomic():
                done = actor.act(page.documents, at=clock())
                for text in done.errors:
                    runs.note(run, kind="order", text=text, now=clock())
                runs.checkpoint(
                    run, cursor=page.cursor if page.more else run.cursor, counts=done.counts, now=clock()
                )
            days |= done.days
            if not page.more:
                break
            # Yield to the live order path while the machine is busy: rest a multiple of the page's own time, but
            # not past the run's budget (the task runner's timeout stops a task mid-rest; the next call carries on).
            rest = min(pace.rest(time.monotonic() - page_began), budget - (time.monotonic() - began))
            if rest > 0:
                pause(rest)
            if time.monotonic() - began >= budget:
                SyncRun.objects.filter(pk=run.pk, runner=run.runner).update(lease_until=clock())
                synced.unfinished = True
                return synced
    except runs.LeaseLost:
        logger.warning("sync run taken over by another runner", extra={"run": run.pk})
        return synced
    except CredentialRevoked as exc:
        _stop(run, kind="credential", text=str(exc), now=clock())
        disconnect(connection, reason=f"The sync's call was refused: {exc}", at=clock())
        return synced
    except PlatformUnavailable as exc:
        _stop(run, kind="unavailable", text=str(exc), now=clock())
        return synced
    except PlatformAPIError as exc:
        _stop(run, kind="platform", text=str(exc), now=clock())
        return synced
    except (SyncFault, DatabaseError) as exc:
        logger.exception("sync run failed on our side", extra={"run": run.pk})
        _stop(run, kind="service", text=f"A fault on our side stopped the sync: {exc}", now=clock())
        return synced
    runs.finish(run, status=SyncRun.Status.DONE, now=clock())
    synced.captures = capture.measure(connection, days | _window_days(run, actor), now=clock())
    return synced


def _stop(run: SyncRun, *, kind: str, text: str, now: datetime) -> None:
    runs.note(run, kind=kind, text=text, now=now)
    runs.finish(run, status=SyncRun.Status.FAILED, now=now)


def _window_days(run: SyncRun, actor: PageActor) -> set:
    """The shop's days the window covers, but no more than the last 62 (a long Sync now measures its own)."""
    first, last = actor.day_of(run.window_start), actor.day_of(run.window_end)
    days, day = set(), last
    while day >= first and len(days) < 62:
        days.add(day)
        day = day.fromordinal(day.toordinal() - 1)
    return days


def _why_not(connection: PlatformConnection) -> str:
    if connection.disconnected_at is not None:
        return f"disconnected: {connection.disconnect_reason or 'connect the shop again'}"
    if not connection.has_credential():
        return "no API credential: connect the shop with its platform's consent on the setup page"
    if connection.approved_at is None:
        return "waiting for an account manager's approval"
    return "the connection is disabled"
