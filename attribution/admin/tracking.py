"""Creator links and clicks (editable), orders and commissions (read-only, with their amount changes and
adjustments)."""

from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from config.lib.admin import saved_time

from ..models import Adjustment, AmountChange, Click, Commission, CommissionStateChange, CreatorLink, Order
from ..orders.trace import readable
from .common import AdjustmentDisplay, HistoryInline, ReadOnlyAdmin


@admin.register(CreatorLink)
class CreatorLinkAdmin(admin.ModelAdmin):
    """Links are checked on save (CreatorLink.clean): the destination must be a property of the brand."""

    list_display = ["code", "short_link", "brand", "creator", "destination_url", "discount_code", "is_active"]
    list_filter = ["is_active", "brand"]
    list_select_related = ["brand", "creator", "discount_code"]
    search_fields = ["code", "creator__name", "destination_url", "brand__name"]
    autocomplete_fields = ["brand", "creator", "discount_code"]
    readonly_fields = ["created"]
    date_hierarchy = "created_at"
    fields = ["brand", "creator", "code", "destination_url", "discount_code", "is_active", "created"]
    # A destination typed without a scheme is a brand's https page, never http.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description="created at")
    def created(self, obj):
        return saved_time(obj.created_at if obj else None, obj)

    @admin.display(description="link")
    def short_link(self, obj):
        path = reverse("links:follow", args=[obj.code])
        return format_html('<a href="{}" rel="noopener" target="_blank">{}</a>', path, path)


@admin.register(Click)
class ClickAdmin(admin.ModelAdmin):
    list_display = ["click_id", "brand", "property", "creator", "clicked_at"]
    list_filter = ["brand"]
    list_select_related = ["brand", "property", "creator"]
    search_fields = ["click_id", "creator__name"]
    date_hierarchy = "clicked_at"
    readonly_fields = ["click_id"]
    autocomplete_fields = ["brand", "property", "creator"]


class CommissionInline(admin.StackedInline):
    model = Commission
    extra = 0
    can_delete = False
    readonly_fields = [
        "state",
        "creator",
        "amount",
        "currency",
        "rate_percent",
        "order_amount",
        "created_at",
        "cancelled_at",
        "locked_at",
        "paid_at",
        "paid_amount",
        "statement",
    ]
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Order)
class OrderAdmin(ReadOnlyAdmin):
    list_display = [
        "order_id",
        "brand",
        "is_test",
        "amount",
        "currency",
        "outcome",
        "attribution",
        "received_at",
    ]
    list_filter = ["brand", "is_test", "outcome", "attribution"]
    list_select_related = ["brand"]
    search_fields = ["order_id"]
    date_hierarchy = "received_at"
    raw_id_fields = ["click", "discount_code", "creator", "property"]
    inlines = [CommissionInline]
    exclude = ["trace"]
    readonly_fields = ["decision_trace"]

    @admin.display(description="decision trace")
    def decision_trace(self, obj):
        return trace_html(obj.trace)


def trace_html(trace: list[dict]):
    """An order's decision trace (attribution.orders.trace) as a numbered list, the step that credited a creator in bold."""
    if not trace:
        return "No signal consulted: no click id, code or shopper email came with the order."
    steps = readable(trace)
    return format_html(
        "<ol style='margin:0;padding-left:1.2em'>{}</ol>",
        format_html_join(
            "",
            "<li>{}{}: {} ({}){}</li>",
            (
                (
                    mark_safe("<strong>") if s["won"] else "",
                    s["signal_label"],
                    s["result_label"],
                    s["detail"],
                    mark_safe("</strong>") if s["won"] else "",
                )
                for s in steps
            ),
        ),
    )


class StateChangeInline(HistoryInline):
    """Every state move of the commission (Commission.move_to), with why and the request behind it."""

    model = CommissionStateChange
    verbose_name_plural = "state history"
    fields = ["changed_at", "from_state", "to_state", "cause", "request_id"]


class AmountChangeInline(HistoryInline):
    model = AmountChange
    fields = ["changed_at", "old_order_amount", "new_order_amount", "old_amount", "new_amount", "request_id"]


class CommissionAdjustmentInline(AdjustmentDisplay, HistoryInline):
    model = Adjustment
    fk_name = "commission"
    fields = ["created_at", "reason", "shown_amount", "statement_month", "request_id"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("statement")


@admin.register(Commission)
class CommissionAdmin(ReadOnlyAdmin):
    list_display = [
        "order",
        "brand",
        "creator",
        "state",
        "amount",
        "currency",
        "reporting_amount",
        "reporting_currency",
        "is_test",
        "created_at",
        "locked_at",
        "statement",
    ]
    list_filter = ["state", "is_test", "brand"]
    list_select_related = ["order", "brand", "creator", "statement__brand"]
    search_fields = ["order__order_id", "creator__name"]
    date_hierarchy = "created_at"
    raw_id_fields = ["order", "creator", "statement"]
    inlines = [StateChangeInline, AmountChangeInline, CommissionAdjustmentInline]

    def lookup_allowed(self, lookup, value, request=None):
        # The statement page links here for the commissions behind it.
        return lookup == "statement__id__exact" or super().lookup_allowed(lookup, value, request)
