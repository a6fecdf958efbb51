"""Dead letters (spooled events that failed for good, to retry or drop) and each server's spool backlog."""

from django.contrib import admin, messages
from django.utils.html import format_html

from config.lib.jsontext import indented

from .. import replay
from ..models import DeadLetter, SpoolBacklog
from .common import ReadOnlyAdmin


@admin.register(DeadLetter)
class DeadLetterAdmin(admin.ModelAdmin):
    """Spooled events that failed while the database answered (attribution.replay). Fix the cause, then
    "Retry" processes each again as at its arrival; "Delete" drops it for good (the admin's history keeps who)."""

    list_display = ["received_at", "brand", "endpoint", "answered", "short_reason", "attempts", "failed_at"]
    list_filter = ["endpoint", "brand"]
    list_select_related = ["brand"]
    search_fields = ["request_id", "spool_id"]
    ordering = ["received_at"]
    actions = ["retry"]
    fields = [
        "brand",
        "endpoint",
        "received_at",
        "request_id",
        "answered",
        "reason",
        "attempts",
        "failed_at",
        "key_prefix",
        "body_as_kept",
        "record",
        "spool_id",
    ]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="reason")
    def short_reason(self, obj):
        return obj.reason if len(obj.reason) <= 100 else obj.reason[:97] + "..."

    @admin.display(description="body (addresses hashed)")
    def body_as_kept(self, obj):
        return format_html("<pre>{}</pre>", indented(obj.body)) if obj.body else "–"

    @admin.action(description="Retry the selected events now", permissions=["delete"])
    def retry(self, request, queryset):
        results = [replay.retry_dead_letter(letter) for letter in queryset]
        replayed = results.count("replayed")
        if replayed:
            self.message_user(request, f"{replayed} event(s) processed and removed from the dead letters.")
        if len(results) - replayed:
            self.message_user(
                request,
                f"{len(results) - replayed} event(s) failed again; each keeps its new reason.",
                messages.WARNING,
            )


@admin.register(SpoolBacklog)
class SpoolBacklogAdmin(ReadOnlyAdmin):
    """What each server's spool held at its last replay run (what the overview counts). A server taken out of
    service keeps its last row: delete it here."""

    list_display = ["server", "waiting", "oldest_received_at", "checked_at"]
    ordering = ["server"]

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("attribution.delete_spoolbacklog")
