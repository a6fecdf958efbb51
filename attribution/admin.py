"""Creator links, clicks, orders and commissions for account managers. Orders and commissions are read-only here:
they change only through the API's services, so their history stays complete."""

from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html

from .models import AmountChange, Click, Commission, CreatorLink, Order


@admin.register(CreatorLink)
class CreatorLinkAdmin(admin.ModelAdmin):
    """Links are checked on save (CreatorLink.clean): the destination must be a property of the brand."""

    list_display = ["code", "short_link", "brand", "creator", "destination_url", "discount_code", "is_active"]
    list_filter = ["is_active", "brand"]
    list_select_related = ["brand", "creator", "discount_code"]
    search_fields = ["code", "creator__name", "destination_url", "brand__name"]
    autocomplete_fields = ["brand", "creator", "discount_code"]
    readonly_fields = ["created_at"]
    date_hierarchy = "created_at"
    fields = ["brand", "creator", "code", "destination_url", "discount_code", "is_active", "created_at"]
    # A destination typed without a scheme is a brand's https page, never http.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

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


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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


class AmountChangeInline(admin.TabularInline):
    model = AmountChange
    extra = 0
    can_delete = False
    fields = ["changed_at", "old_order_amount", "new_order_amount", "old_amount", "new_amount", "request_id"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Commission)
class CommissionAdmin(ReadOnlyAdmin):
    list_display = ["order", "brand", "creator", "state", "amount", "currency", "is_test", "created_at"]
    list_filter = ["state", "is_test", "brand"]
    list_select_related = ["order", "brand", "creator"]
    search_fields = ["order__order_id", "creator__name"]
    date_hierarchy = "created_at"
    raw_id_fields = ["order", "creator"]
    inlines = [AmountChangeInline]
