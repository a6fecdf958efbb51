from django.apps import AppConfig


class AttributionConfig(AppConfig):
    name = "attribution"
    verbose_name = "Attribution"
