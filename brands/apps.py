from django.apps import AppConfig


class BrandsConfig(AppConfig):
    name = "brands"
    verbose_name = "Brands"

    def ready(self):
        from . import (
            signals,  # noqa: F401  (cache invalidation on edits)
            user_zones,  # noqa: F401  (the user's zone put in the session at sign-in)
        )
