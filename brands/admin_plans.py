"""Commission plan versions in the admin (docs/plans.md): account managers read every brand's versions;
none is ever changed or deleted, and a new one is made on the brand's Commission plan page or by its API,
where the document is checked whole."""

import json

from django.contrib import admin
from django.utils.html import format_html

from .models import PlanVersion


@admin.register(PlanVersion)
class PlanVersionAdmin(admin.ModelAdmin):
    list_display = ("brand", "version", "effective_from", "created_at", "created_by", "rules")
    list_filter = ("created_by",)
    list_select_related = ("brand",)
    search_fields = ("brand__name",)
    raw_id_fields = ("brand",)
    ordering = ("brand", "-version")
    readonly_fields = ("brand", "version", "effective_from", "created_at", "created_by", "shown_document")
    exclude = ("document",)

    @admin.display(description="rules")
    def rules(self, obj):
        return len(obj.document.get("rules", []))

    @admin.display(description="document")
    def shown_document(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.document, indent=2))

    def has_add_permission(self, request):
        return False  # made on the Commission plan page or by the API, where the document is checked

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
