from django.apps import AppConfig
from django.db.models.signals import post_migrate


class HealthConfig(AppConfig):
    name = "health"
    verbose_name = "Tracking health"

    def ready(self):
        from health.alerts import admin  # noqa: F401  (registers the alert models in the admin)

        post_migrate.connect(_ensure_schedules, sender=self)
        post_migrate.connect(_ensure_partitions, sender=self)


def _ensure_schedules(**kwargs):
    from .tasks import ensure_schedules

    ensure_schedules()


def _ensure_partitions(using="default", **kwargs):
    """The outcome log's months ahead, made at every migrate too (health.log.partitions)."""
    from django.db import connections

    from .log.partitions import ensure_partitions

    if connections[using].vendor == "postgresql" and using == "default":
        ensure_partitions()
