"""The background work, run by the task runner (django-q2 with its ORM broker: `manage.py qcluster`), and
its schedules (docs/operations.md, "Scheduled jobs"). Each task calls the same function as its
management command, which stays for operators.

The schedules are rows of django-q's Schedule table, visible and editable in the admin; they are created
when missing after every `migrate` and never overwritten, so an operator's change stays. Two clusters
never start one scheduled run twice (django-q picks due schedules under SELECT ... FOR UPDATE), and each
task is safe to run twice at once all the same (a task that outlives the runner's retry is run again).
"""

import io
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from django.core.management import call_command
from django.utils import timezone

from attribution.billing.writers import lock_due_commissions
from attribution.http.throttles import prune_counters
from attribution.models import Reconciliation
from attribution.platforms.sync import orchestration
from attribution.reconciliation import applying
from attribution.replay import replay_all
from health.alerts import evaluation as alerts
from health.alerts.notify import notifications
from health.log.partitions import ensure_partitions
from health.log.retention import prune
from health.log.rollup import roll_up
from health.pruning import prune_tables
from health.references import dangling, describe

logger = logging.getLogger(__name__)

RETENTION = timedelta(days=400)  # longer than the longest period the overview offers (366 days)
RECONCILIATION_TASK_SECONDS = 120  # within the runner's 240 s task timeout (settings.Q_CLUSTER)


def evaluate_alerts() -> str:
    result = alerts.evaluate()
    if result.skipped:
        return "Skipped: another evaluation is running."
    sent = notifications.deliver_due()
    return (
        f"Evaluated {result.brands} brands: {len(result.opened)} incidents opened, {len(result.resolved)} "
        f"resolved; {sent.delivered} notifications delivered, {sent.retrying} to retry, {sent.failed} failed."
    )


def deliver_notifications() -> str:
    sent = notifications.deliver_due()
    return f"Attempted {sent.attempted} deliveries: {sent.delivered} delivered, {sent.retrying} to retry, {sent.failed} failed."


def roll_up_outcomes() -> str:
    result = roll_up()
    return f"Rolled up {result.events} outcome events; watermark at event {result.watermark}."


def replay_spool() -> str:
    summary = replay_all()
    return (
        f"Replayed {summary.replayed}; {summary.already_done} already replayed, {summary.still_failing} still "
        f"failing, {summary.dead_lettered} dead-lettered; {summary.waiting} waiting."
    )


def lock_commissions() -> str:
    run = lock_due_commissions(now=timezone.now())
    return f"Locked {run.locked} commissions onto {len(run.statements)} statements."


def refresh_review_figures() -> str:
    """The review figures' flags (attribution.review.figures): what the code_leak and refund_rate rules hold
    new orders by, and the code leak and refund-rate alerts open incidents on."""
    out = io.StringIO()
    call_command("refresh_review_figures", stdout=out)
    return out.getvalue().strip()


def prune_outcomes() -> str:
    result = prune(before=timezone.now() - RETENTION)
    counters = prune_counters()
    return (
        f"Deleted {result.deleted} outcome events ({len(result.months_dropped)} months dropped whole); "
        f"{result.hourly_deleted} hourly counts; "
        f"{counters} idle throttle counters."
    )


def prune_growing_tables() -> str:
    deleted = prune_tables()
    return "Pruned " + "; ".join(f"{n} {name}" for name, n in deleted.items()) + "."


def check_references() -> str:
    """The references the database does not check per write (health.references), for the last two days:
    the daily run overlaps the one before. A row naming no existing row is logged as an error."""
    found = dangling(since=timezone.now() - timedelta(days=2))
    if found:
        logger.error("dangling references: %s", describe(found))
    return describe(found)


def continue_reconciliations() -> str:
    """Carry on the applies a request started and left for the runner (attribution.reconciliation.applying),
    each for a few of the task's minutes; what is left waits for the next run."""
    runs = applying.unfinished()
    created = changed = 0
    for pk in runs:
        run = Reconciliation.objects.filter(pk=pk).first()
        if run is None:
            continue
        done = applying.apply(run, seconds=RECONCILIATION_TASK_SECONDS)
        created += done.changes["created"]
        changed += done.changes["updated"] + done.changes["cancelled"]
    return f"Carried on {len(runs)} reconciliation applies: {created} orders created, {changed} commissions changed."


def refresh_fx_rates() -> str:
    """The ECB's newer reference rates (attribution.fx.loading), then the commissions that waited for one."""
    out = io.StringIO()
    call_command("load_fx_rates", stdout=out)
    return out.getvalue().strip()


def make_outcome_partitions() -> str:
    made = ensure_partitions()
    return f"Made {len(made)} outcome log partitions: {', '.join(made) or 'none missing'}."


def sync_shops() -> str:
    """The nightly sync (attribution.platforms.sync.orchestration): one task per connection that can be synced,
    each of which opens its run's incidents through health's receiver of the sync's signal (health/apps.py)."""
    return orchestration.queue_nightly()


# The shop's sync a task queued before the sync's tasks were named in attribution.platforms.sync.orchestration.
sync_shop = orchestration.sync_shop


@dataclass(frozen=True)
class Plan:
    name: str
    func: str
    minutes: int | None = None  # every N minutes; None: daily at `daily_at` (UTC)
    daily_at: time | None = None


SCHEDULES = [
    Plan("Evaluate alert rules and notify", "health.tasks.evaluate_alerts", minutes=1),
    Plan("Retry notification deliveries", "health.tasks.deliver_notifications", minutes=1),
    Plan("Roll up the outcome log", "health.tasks.roll_up_outcomes", minutes=1),
    Plan("Replay the spool", "health.tasks.replay_spool", minutes=1),
    Plan("Lock commissions", "health.tasks.lock_commissions", minutes=5),
    Plan("Carry on reconciliation applies", "health.tasks.continue_reconciliations", minutes=1),
    Plan("Refresh the review figures", "health.tasks.refresh_review_figures", daily_at=time(2, 30)),
    Plan("Prune the outcome log (400 days)", "health.tasks.prune_outcomes", daily_at=time(3, 30)),
    Plan("Make the outcome log partitions ahead", "health.tasks.make_outcome_partitions", daily_at=time(3)),
    Plan("Prune the growing tables", "health.tasks.prune_growing_tables", daily_at=time(3, 45)),
    Plan("Check the references", "health.tasks.check_references", daily_at=time(4)),
    # The ECB publishes around 16:00 CET (15:00 UTC in winter, 14:00 in summer).
    Plan("Refresh the currency rates", "health.tasks.refresh_fx_rates", daily_at=time(15, 30)),
    # After the shops' day has ended in the Americas and Europe alike (01:15 New York is 06:15 UTC).
    Plan("Sync the orders of every shop", "health.tasks.sync_shops", daily_at=time(6, 15)),
]


def ensure_schedules(*, now: datetime | None = None) -> int:
    """Create the schedules that are missing (by name); returns how many were created."""
    from django_q.models import Schedule  # the app registry is ready only once migrations ran

    now = now or timezone.now()
    created = 0
    for plan in SCHEDULES:
        if plan.minutes:
            defaults = {"schedule_type": Schedule.MINUTES, "minutes": plan.minutes, "next_run": now}
        else:
            first = datetime.combine(now.astimezone(UTC).date(), plan.daily_at, tzinfo=UTC)
            defaults = {
                "schedule_type": Schedule.DAILY,
                "next_run": first if first > now else first + timedelta(days=1),
            }
        _, made = Schedule.objects.get_or_create(
            name=plan.name, defaults={"func": plan.func, "repeats": -1, **defaults}
        )
        created += made
    return created
