"""The shops' syncs across brands, for account managers (issue 57): each run with its shop, window, what it read
and recovered, its errors and its state. Read-only, as the runs are the sync's record of what it did."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from ..models import SyncRun
from .common import ReadOnlyAdmin


@admin.register(SyncRun)
class SyncRunAdmin(ReadOnlyAdmin):
    list_display = [
        "started_at",
        "brand",
        "shop",
        "window",
        "orders_read",
        "recovered",
        "followed",
        "error_count",
        "status",
        "trigger",
        "page",
    ]
    list_filter = ["status", "trigger", "connection__platform"]
    list_select_related = ["brand", "connection"]
    search_fields = ["brand__name", "connection__shop_domain"]
    date_hierarchy = "started_at"
    ordering = ["-started_at", "-pk"]
    exclude = ["cursor", "lease_until", "runner"]

    @admin.display(description="shop", ordering="connection__shop_domain")
    def shop(self, obj):
        return str(obj.connection)

    @admin.display(description="window (UTC)")
    def window(self, obj):
        return f"{obj.window_start:%Y-%m-%d %H:%M} – {obj.window_end:%Y-%m-%d %H:%M}"

    @admin.display(description="errors")
    def error_count(self, obj):
        return len(obj.errors or [])

    @admin.display(description="recovered orders")
    def page(self, obj):
        url = reverse("health:sync_run", args=[obj.pk])
        return format_html('<a href="{}?brand={}">sync page</a>', url, obj.brand_id)
