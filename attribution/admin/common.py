"""What the attribution admin pages share: read-only pages and history tables, and adjustments shown in
minor units."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from ..money import in_minor_units


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class CommissionColumns:
    """The order (a link to its commission) and the creator of a row that belongs to a commission: an
    adjustment, a hold."""

    @admin.display(description="order")
    def order_link(self, obj):
        url = reverse("admin:attribution_commission_change", args=[obj.commission_id])
        return format_html('<a href="{}">{}</a>', url, obj.commission.order.order_id)

    @admin.display(description="creator")
    def creator(self, obj):
        return obj.commission.creator.name


class AdjustmentDisplay(CommissionColumns):
    """Adjustment amounts in the currency's minor units, and the order they belong to."""

    @admin.display(description="amount")
    def shown_amount(self, obj):
        return f"{in_minor_units(obj.amount, obj.currency)} {obj.currency}"

    @admin.display(description="statement")
    def statement_month(self, obj):
        return f"{obj.statement.month:%Y-%m}"


class HistoryInline(admin.TabularInline):
    """Rows that record what happened to the parent (moves, amount changes, adjustments): listed with it,
    never added, changed or deleted here. A subclass names its `model` and `fields`."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None):
        return False
