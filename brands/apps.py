from django.apps import AppConfig


class BrandsConfig(AppConfig):
    name = "brands"
    verbose_name = "Brands"

    def ready(self):
        from . import signals  # noqa: F401  (cache invalidation on edits)
