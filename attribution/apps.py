from django.apps import AppConfig


class AttributionConfig(AppConfig):
    name = "attribution"
    verbose_name = "Attribution"

    def ready(self):
        from .review import signals  # noqa: F401  (issue 38: a brand's review copy forgotten on edits)
