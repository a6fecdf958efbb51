"""The currency rates kept here (docs/currencies.md), for account managers: read-only, as every rate once
stored stays as it is; `manage.py load_fx_rates` adds the missing days."""

from django.contrib import admin

from ..models import FxRate
from .common import ReadOnlyAdmin


@admin.register(FxRate)
class FxRateAdmin(ReadOnlyAdmin):
    list_display = ["day", "currency", "per_euro", "source"]
    list_filter = ["currency", "source"]
    search_fields = ["currency"]
    date_hierarchy = "day"
    ordering = ["-day", "currency"]
