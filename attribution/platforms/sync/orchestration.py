"""A shop's sync as the task runner, the sync_orders command and Sync now run it: queued for the task runner (or
the sync's own runner), run, carried on by a task of its own while it has pages left, and said in one line. A
finished run is announced (signals.sync_run_finished), so the incidents it calls for are opened by health, which
this package never imports.

queue_nightly: the nightly sync, one task per connection that can be synced (a slow shop holds up no other).
"""

import time
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django_q.tasks import async_task

from attribution.models import SyncRun
from brands.models import PlatformConnection

from . import queued
from .runner import Synced, sync_connection
from .signals import sync_run_finished

# The task a queued sync runs (sync_shop below), by the name the task runner imports.
TASK = f"{__name__}.sync_shop"


def queue_sync(connection_id: int, trigger: str, since: str = "", until: str = "") -> None:
    """Queue one shop's sync (sync_shop): on the sync's own runner when SYNC_TASK_CLUSTER names one, so that it
    runs at the lowest CPU weight beside the web servers (docs/operations.md, "The sync's own runner"); else on
    the task runner."""
    args = (connection_id, trigger, since, until) if since or until else (connection_id, trigger)
    async_task(TASK, *args, group="sync", cluster=settings.SYNC_TASK_CLUSTER or None)


def queue_nightly() -> str:
    """The nightly sync: one task per connection that can be synced, so each shop's sync runs on its own."""
    ids = connections_to_sync()
    for pk in ids:
        queue_sync(pk, SyncRun.Trigger.NIGHTLY.value)
    return f"Queued the sync of {len(ids)} shops."


def connections_to_sync() -> list[int]:
    return [
        connection.pk
        for connection in PlatformConnection.objects.filter(
            is_enabled=True, approved_at__isnull=False, disconnected_at__isnull=True
        ).exclude(credential="")
        if connection.can_sync()
    ]


def sync_shop(connection_id: int, trigger: str = "nightly", since: str = "", until: str = "") -> str:
    """One shop's sync, the task queue_sync queues; a run with pages left after the task's time is carried on by
    a task of its own, from its last page. Sync now's hold on the shop (queued) is let go once it has finished."""
    try:
        synced = run_sync(
            connection_id,
            trigger=trigger,
            since=datetime.fromisoformat(since) if since else None,
            until=datetime.fromisoformat(until) if until else None,
        )
    except Exception:
        if trigger == SyncRun.Trigger.MANUAL:
            queued.release(connection_id)
        raise
    if synced.unfinished:
        queue_sync(connection_id, trigger)
    elif trigger == SyncRun.Trigger.MANUAL:  # Sync now's run has finished: the next press may queue one
        queued.release(connection_id)
    return describe_synced(synced)


def run_sync(
    connection_id: int,
    *,
    trigger: str,
    since: datetime | None = None,
    until: datetime | None = None,
    sleep=time.sleep,
    clock=timezone.now,
    seconds: float | None = None,
) -> Synced:
    """Sync the connection (runner.sync_connection), then announce its run once it has finished."""
    synced = sync_connection(
        connection_id, trigger=trigger, since=since, until=until, sleep=sleep, clock=clock, seconds=seconds
    )
    if synced.run is not None and not synced.unfinished and synced.run.status != SyncRun.Status.RUNNING:
        sync_run_finished.send(sender=SyncRun, run=synced.run, now=clock())
    return synced


def describe_synced(synced: Synced) -> str:
    """What one sync did, in one line (the command's output, the task's result)."""
    if synced.not_synced:
        return f"Not synced: {synced.not_synced}."
    if synced.run is None:
        busy = synced.busy
        return (
            f"Not synced: sync {busy.pk} of this shop is running."
            if busy
            else "Not synced: a sync is running."
        )
    run = SyncRun.objects.get(pk=synced.run.pk)
    text = (
        f"Sync {run.pk} of connection {run.connection_id} ({run.get_status_display().lower()}"
        f"{', resumed' if synced.resumed else ''}{', to be carried on' if synced.unfinished else ''}), window "
        f"{run.window_start:%Y-%m-%d %H:%M} to {run.window_end:%Y-%m-%d %H:%M} UTC: {run.orders_read} orders read "
        f"in {run.pages} pages, {run.recovered} recovered, {run.followed} followed, {run.unchanged} unchanged, "
        f"{run.skipped} skipped."
    )
    hooks = run.webhooks or {}
    for key, words in (
        ("recreated", "re-created"),
        ("reenabled", "re-enabled"),
        ("left_disabled", "left disabled"),
    ):
        if hooks.get(key):
            text += f" Webhooks {words}: {', '.join(hooks[key])}."
    for error in run.errors[-3:]:
        text += f" {error['kind']}: {error['text']}"
    return text
