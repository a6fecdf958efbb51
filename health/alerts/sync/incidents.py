"""The incidents a finished sync run calls for (attribution.platforms.sync announces the run; health/apps.py
hands it here), opened and resolved here (the alert evaluation leaves them alone: health.alerts.sync.descriptions.SYNC_RULES).

- sync_recovered, one a shop, listing its days: the runs recorded orders no live path had brought ("3 of 212
  orders of Nov 23 arrived only by the sync"); a later run adds its days; resolved by a run that recovers none.
- disconnected (health.alerts.connections.rules): the platform refused the credential, so the sync marked the
  connection disconnected; opened at once here, resolved by the evaluation once the shop is connected again.
- webhook_removed / webhook_disabled: the webhooks' check found one missing or disabled (and put it right);
  resolved by a check that finds them whole.
- api_version: Shopify served another version than the pinned one; resolved when it serves the pinned one.
"""

from datetime import datetime

from django.db.models import Count

from attribution.models import DailyCapture, SyncedOrder, SyncRun
from attribution.platforms.apis.shopify import API_VERSION
from attribution.platforms.registry import platform_named
from brands.models import PlatformConnection
from health.alerts.connections import rules as connection_rules
from health.alerts.findings import Finding
from health.alerts.incidents import open_incident, resolve
from health.alerts.models import AlertRuleSet, Incident
from health.alerts.sync.descriptions import SYNC_RULES

Rule = Incident.Rule


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
