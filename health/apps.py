from django.apps import AppConfig
from django.db.models.signals import post_migrate


class HealthConfig(AppConfig):
    name = "health"
    verbose_name = "Tracking health"

    def ready(self):
        from health.alerts import admin  # noqa: F401  (registers the alert models in the admin)

        post_migrate.connect(_ensure_schedules, sender=self)


def _ensure_schedules(**kwargs):
    from .tasks import ensure_schedules

    ensure_schedules()
