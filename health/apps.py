from django.apps import AppConfig
from django.db.models.signals import post_migrate


class HealthConfig(AppConfig):
    name = "health"
    verbose_name = "Tracking health"

    def ready(self):
        from attribution.platforms.sync.signals import sync_run_finished
        from health.alerts import admin  # noqa: F401  (registers the alert models in the admin)

        post_migrate.connect(_ensure_schedules, sender=self)
        post_migrate.connect(_ensure_partitions, sender=self)
        # The sync (attribution) imports nothing of health: it announces a finished run, and health describes it.
        sync_run_finished.connect(_report_sync_run, dispatch_uid="health.sync_incidents")


def _ensure_schedules(**kwargs):
    from .tasks import ensure_schedules

    ensure_schedules()


def _report_sync_run(sender, *, run, now, **kwargs):
    """A sync run has finished: the incidents it calls for, opened and resolved (health.alerts.sync.incidents)."""
    from .alerts.sync.incidents import report

    report(run, now=now)


def _ensure_partitions(using="default", **kwargs):
    """The outcome log's months ahead, made at every migrate too (health.log.partitions)."""
    from django.db import connections

    from .log.partitions import ensure_partitions

    if connections[using].vendor == "postgresql" and using == "default":
        ensure_partitions()
