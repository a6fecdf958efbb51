from django.apps import AppConfig


class AttributionConfig(AppConfig):
    name = "attribution"
    verbose_name = "Attribution"

    def ready(self):
        # The storefront platforms register their endpoints and labels (attribution.platforms.registry), and tell
        # brands which platforms a connection may name (brands.known_platforms).
        from attribution.platforms import registry  # noqa: F401
        from attribution.review import signals  # noqa: F401  (issue 38: a brand's review copy forgotten on edits)
