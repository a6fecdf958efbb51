"""The sync of one connection (docs/integration.md, "The nightly sync"): start a run, or take over the run of a
runner that died, check the shop's webhooks, read the window's orders page by page and act on each page
(sync.acting), checkpointing after each so that a crash resumes from the last page, then measure the days'
capture. What it found is on the run (attribution.models.SyncRun); health opens the incidents it calls for.

Between pages, while its machine is busy, the sync rests SYNC_PAUSE_RATIO times the page's own time, so that the
live order path beside it keeps its latency (sync.pace). A run reads for `seconds` at most: a run with pages left
hands its lease back and says so (`unfinished`), and the task runner carries it on (orchestration.sync_shop).

A shop's answers are untrusted input (docs/threat-model.md, "Round six"): no call runs past the run's budget (the
outbound client's `budget`), a page starts only when a whole call's deadline fits in what is left, a run reads at
most SYNC_MAX_PAGES_PER_RUN pages and a shop's runs SYNC_MAX_PAGES_PER_DAY in 24 hours, a cursor or a page the
platform gave before ends the run, and an answer that cannot be read fails it: each stops the run as failed with
its reason, for its incident (opened by health on signals.sync_run_finished), never a run left `running`.
"""

import hashlib
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from attribution.models import SyncRun
from brands.models import PlatformConnection
from config.lib import outbound

from ..apis.errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable
from ..connect.connections import disconnect
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
    pace = Pace(ratio=settings.SYNC_PAUSE_RATIO, busy_share=settings.SYNC_BUSY_CPU_SHARE)
    days: set = set()
    try:
        # Inside the try: a shop whose address the outbound guard refuses (kept from before a guard tightened,
        # or a host since taken off PLATFORM_PLAIN_HTTP_HOSTS) fails its run as any refused call does.
        source = source_for(connection, run, sleep=sleep)
        actor = PageActor(run=run, connection=connection, platform=source.platform, shape=source.shape)
        limits = _Limits(run, connection, now=clock())
        # A call's own deadline bounds the first page; each next one starts only when a whole call fits (_read_pages).
        with outbound.budget(max(budget, settings.PLATFORM_CALL_SECONDS)):
            if not run.pages:  # once a run: the webhooks' health (not again when a run is carried on)
                source.check_webhooks(run, now=clock())
            unfinished = _read_pages(run, source, actor, pace, limits, days, clock, pause, began, budget)
        if unfinished:
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
    except PastLimit as exc:
        _stop(run, kind="limit", text=str(exc), now=clock())
        return synced
    except (SyncFault, DatabaseError) as exc:
        logger.exception("sync run failed on our side", extra={"run": run.pk})
        _stop(run, kind="service", text=f"A fault on our side stopped the sync: {exc}", now=clock())
        return synced
    except Exception as exc:  # never a run left running until its lease runs out (finding 9)
        logger.exception("sync run failed unexpectedly", extra={"run": run.pk})
        _stop(
            run,
            kind="service",
            text=f"The sync stopped on an unexpected fault: {type(exc).__name__}",
            now=clock(),
        )
        return synced
    runs.finish(run, status=SyncRun.Status.DONE, now=clock())
    synced.captures = capture.measure(connection, days | _window_days(run, actor), now=clock())
    return synced


class PastLimit(Exception):
    """The run went past a cap on its pages, or the platform answered a page or cursor it gave before."""


class _Limits:
    """The run's caps on pages (its own, and its shop's of the last 24 hours) and what it has been answered."""

    def __init__(self, run: SyncRun, connection: PlatformConnection, *, now: datetime):
        self.run = run
        self.per_run, self.per_day = settings.SYNC_MAX_PAGES_PER_RUN, settings.SYNC_MAX_PAGES_PER_DAY
        self.others_today = runs.pages_since(connection, since=now - runs.DAY) - run.pages
        self.cursors = {run.cursor} if run.cursor else set()
        self.last_page = ""

    def before_page(self) -> None:
        if self.run.pages >= self.per_run:
            raise PastLimit(
                f"The run read {self.run.pages} pages, its most (SYNC_MAX_PAGES_PER_RUN): stopped."
            )
        if self.others_today + self.run.pages >= self.per_day:
            raise PastLimit(
                f"The shop's syncs read {self.others_today + self.run.pages} pages in 24 hours, their most "
                "(SYNC_MAX_PAGES_PER_DAY): stopped until tomorrow."
            )

    def after_page(self, page) -> None:
        """A cursor given before, or the same orders as the page before, would read the same pages forever."""
        if page.more and page.cursor in self.cursors:
            raise PastLimit("The platform gave a page's cursor it had given before: the run stopped.")
        self.cursors.add(page.cursor)
        ids = repr([d.get("id") if isinstance(d, dict) else d for d in page.documents]).encode()
        digest = hashlib.sha256(ids).hexdigest() if page.documents else ""
        if page.more and digest and digest == self.last_page:
            raise PastLimit("The platform answered the same orders as the page before: the run stopped.")
        self.last_page = digest


def _read_pages(run, source, actor, pace, limits, days, clock, pause, began, budget) -> bool:
    """Read and act on the pages; True when the budget ends with pages left (the run is carried on)."""
    while True:
        limits.before_page()
        page_began = time.monotonic()
        page = source.reader.page(run.cursor)
        limits.after_page(page)
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
            return False
        # Yield to the live order path while the machine is busy: rest a multiple of the page's own time, but
        # not past the run's budget (the task runner's timeout stops a task mid-rest; the next call carries on).
        rest = min(pace.rest(time.monotonic() - page_began), budget - (time.monotonic() - began))
        if rest > 0:
            pause(rest)
        # The next page starts only when a whole call fits in the budget: one cut short would fail the run.
        if budget - (time.monotonic() - began) < min(settings.PLATFORM_CALL_SECONDS, budget / 2):
            return True


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
