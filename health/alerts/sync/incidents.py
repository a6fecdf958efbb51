"""The shops' sync as the task runner, the sync_orders command and Sync now run it: the sync of one connection
(attribution.platforms.sync.runner), then the incidents its run calls for, opened and resolved here (the alert
evaluation leaves them alone: health.alerts.rules.SYNC_RULES). What a run says, in one line, for a command or a
task's result.

- sync_recovered, one a shop, listing its days: the runs recorded orders no live path had brought ("3 of 212
  orders of Nov 23 arrived only by the sync"); a later run adds its days; resolved by a run that recovers none.
- disconnected (health.alerts.connection_rules): the platform refused the credential, so the sync marked the
  connection disconnected; opened at once here, resolved by the evaluation once the shop is connected again.
- webhook_removed / webhook_disabled: the webhooks' check found one missing or disabled (and put it right);
  resolved by a check that finds them whole.
- api_version: Shopify served another version than the pinned one; resolved when it serves the pinned one.

queue_sync: one shop's sync queued for the task runner (health.tasks.sync_shop), or for the sync's own runner.
"""

import time
from datetime import datetime

from django.conf import settings
from django.db.models import Count
from django.utils import timezone
from django_q.tasks import async_task

from attribution.models import DailyCapture, SyncedOrder, SyncRun
from attribution.platforms.apis.shopify import API_VERSION
from attribution.platforms.registry import platform_named
from attribution.platforms.sync.runner import Synced, sync_connection
from brands.models import PlatformConnection
from health.alerts.connections import rules as connection_rules
from health.alerts.findings import Finding
from health.alerts.incidents import open_incident, resolve
from health.alerts.models import AlertRuleSet, Incident
from health.alerts.sync.descriptions import SYNC_RULES

Rule = Incident.Rule


def queue_sync(connection_id: int, trigger: str, since: str = "", until: str = "") -> None:
    """Queue one shop's sync (sync_shop): on the sync's own runner when SYNC_TASK_CLUSTER names one, so that it
    runs at the lowest CPU weight beside the web servers (docs/operations.md, "The sync's own runner"); else on
    the task runner."""
    args = (connection_id, trigger, since, until) if since or until else (connection_id, trigger)
    async_task("health.tasks.sync_shop", *args, group="sync", cluster=settings.SYNC_TASK_CLUSTER or None)


def sync_and_report(
    connection_id: int,
    *,
    trigger: str,
    since: datetime | None = None,
    until: datetime | None = None,
    sleep=time.sleep,
    clock=timezone.now,
    seconds: float | None = None,
) -> Synced:
    synced = sync_connection(
        connection_id, trigger=trigger, since=since, until=until, sleep=sleep, clock=clock, seconds=seconds
    )
    if synced.run is not None and not synced.unfinished and synced.run.status != SyncRun.Status.RUNNING:
        report(synced.run, now=clock())
    return synced


def report(run: SyncRun, *, now: datetime) -> list[Incident]:
    """Open and resolve the connection's sync incidents from `run` (finished); the incidents opened."""
    connection = PlatformConnection.objects.get(pk=run.connection_id)
    platform = platform_named(connection.platform)
    base = {
        "connection": connection.pk,
        "shop": connection.shop_name(),
        "platform": connection.platform,
        "title": platform.title if platform else connection.platform,
        "run": run.pk,
        "checked_at": run.started_at.isoformat(),
    }
    email = (AlertRuleSet.objects.filter(brand_id=run.brand_id).first() or AlertRuleSet()).email_enabled
    subject = str(connection.pk)
    opened, found, cleared = [], [], set()
    if connection.disconnected_at is not None and any(e.get("kind") == "credential" for e in run.errors):
        found.extend(
            connection_rules.findings(
                {
                    connection.pk: connection_rules.Disconnected(
                        connection.pk,
                        connection.platform,
                        connection.shop_domain,
                        connection.disconnect_reason,
                        connection.disconnected_at,
                    )
                }
            )
        )
    if run.served_version and run.served_version != API_VERSION:
        found.append(
            Finding(Rule.API_VERSION, subject, {**base, "served": run.served_version, "pinned": API_VERSION})
        )
    elif run.status == SyncRun.Status.DONE and connection.platform == "shopify":
        cleared.add(Rule.API_VERSION)
    credential = connection.disconnected_at is not None and any(
        e.get("kind") == "credential" for e in run.errors
    )
    if run.status == SyncRun.Status.FAILED and run.errors and not credential:
        found.append(Finding(Rule.SYNC_FAILED, subject, {**base, "reason": run.errors[-1]["text"][:300]}))
    elif run.status == SyncRun.Status.DONE:
        cleared.add(Rule.SYNC_FAILED)
    hooks = run.webhooks or {}
    if hooks.get("missing"):
        found.append(Finding(Rule.WEBHOOK_REMOVED, subject, {**base, **_kept(hooks)}))
    elif "missing" in hooks:
        cleared.add(Rule.WEBHOOK_REMOVED)
    if hooks.get("disabled"):
        found.append(Finding(Rule.WEBHOOK_DISABLED, subject, {**base, **_kept(hooks)}))
    elif "disabled" in hooks:
        cleared.add(Rule.WEBHOOK_DISABLED)
    recovered_days = _recovered_days(run)
    open_now = _open(run.brand_id, connection.pk)
    if recovered_days:
        # One cause, one incident: the shop's, listing its days; a later run adds its days to the open one.
        days = _days_recovered(connection, recovered_days)
        kept = next((i for i in open_now if i.rule == Rule.SYNC_RECOVERED and i.subject == subject), None)
        if kept is None:
            found.append(Finding(Rule.SYNC_RECOVERED, subject, {**base, **_totals(days)}))
        else:
            merged = {d["day"]: d for d in (kept.counts or {}).get("days", [])} | {d["day"]: d for d in days}
            kept.counts = {**(kept.counts or {}), **base, **_totals(sorted(merged.values(), key=_by_day))}
            kept.save(update_fields=["counts"])
    if run.status == SyncRun.Status.DONE and not recovered_days:
        cleared.add(Rule.SYNC_RECOVERED)
    for incident in open_now:
        if incident.rule in cleared:
            resolve(incident, now=now, email=email)
    for finding in found:
        incident = open_incident(brand_id=run.brand_id, finding=finding, now=now, email=email)
        if incident is not None:
            opened.append(incident)
    SyncRun.objects.filter(pk=run.pk).update(reported=True)
    return opened


def _open(brand_id: int, connection_id: int) -> list[Incident]:
    # incident_brand_time_idx: the brand's incidents; few are open.
    return [
        incident
        for incident in Incident.objects.filter(
            brand_id=brand_id, resolved_at__isnull=True, rule__in=SYNC_RULES
        )
        if incident.subject.split(":")[0] == str(connection_id)
    ]


def _recovered_days(run: SyncRun) -> dict:
    rows = (
        SyncedOrder.objects.filter(run=run, is_test=False, path=SyncedOrder.Path.SYNC)
        .values("day")
        .annotate(n=Count("id"))
        .order_by("day")
    )
    return {row["day"]: row["n"] for row in rows}


def _days_recovered(connection: PlatformConnection, recovered_days: dict) -> list[dict]:
    """Each day's orders only the sync brought, of the shop's orders of that day (its daily capture)."""
    # daily_capture_unique (brand, connection, day): the days of the run, one query.
    orders = dict(
        DailyCapture.objects.filter(
            brand_id=connection.brand_id, connection=connection, day__in=list(recovered_days)
        ).values_list("day", "orders")
    )
    return [
        {"day": day.isoformat(), "recovered": n, "orders": orders.get(day) or n}
        for day, n in recovered_days.items()
    ]


def _totals(days: list[dict]) -> dict:
    return {
        "days": days,
        "recovered": sum(d["recovered"] for d in days),
        "orders": sum(d["orders"] for d in days),
    }


def _by_day(day: dict) -> str:
    return day["day"]


def _kept(hooks: dict) -> dict:
    return {k: v for k, v in hooks.items() if k != "reenabled_ids"}


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
