"""The outcome log and its counts for account managers: read-only, across brands."""

from django.contrib import admin
from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html

from attribution.admin.tracking import trace_html
from attribution.models import Order
from attribution.outcomes import RECORDED
from brands.models import Brand
from config.lib.admin import CappedCountPaginator, ReadOnlyAdmin, admin_link
from health.log.models import DailyOutcomeCount, OutcomeEvent, RefusedDeliveryCount, UnresolvedHostCount


class OutcomeFilter(admin.SimpleListFilter):
    """Outcome codes from the code list, not a SELECT DISTINCT over millions of rows."""

    title = "outcome"
    parameter_name = "outcome"

    def lookups(self, request, model_admin):
        return [(o.value, o.value) for o in RECORDED]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(outcome=self.value())
        return queryset


@admin.register(OutcomeEvent)
class OutcomeEventAdmin(ReadOnlyAdmin):
    list_display = ["received_at", "brand_link", "endpoint", "outcome", "http_status", "order_id", "is_test"]
    list_filter = ["brand", "endpoint", OutcomeFilter, "is_test", "has_warnings", "received_at"]
    list_select_related = ["brand"]
    date_hierarchy = "received_at"
    # Exact and case-sensitive, like order ids themselves (get_search_results).
    search_fields = ["order_id__exact"]
    search_help_text = "Exact order id."
    ordering = ["-received_at", "-id"]
    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    fields = [
        "brand_link",
        "health_page",
        "endpoint",
        "outcome",
        "http_status",
        "order_id",
        "order_decision",
        "is_test",
        "received_at",
        "recorded_at",
        "request_id",
        "key_prefix",
        "request_body",
        "response_body",
        "has_warnings",
        "warnings",
    ]
    readonly_fields = fields

    def get_ordering(self, request):
        """Within one brand, newest received first (outcome_brand_time_id_idx); across brands, newest
        recorded first: the primary key's order, as no index on the time alone is kept (each would cost
        every event an entry; docs/performance.md, "The index diet")."""
        return self.ordering if request.GET.get("brand__id__exact") else ["-id"]

    def get_search_results(self, request, queryset, search_term):
        """The order id within each brand in one index scan (outcome_brand_order_prefix_idx, brand ids as
        an array), and among the events of no brand: no index on the order id alone is kept."""
        term = search_term.strip()
        if not term:
            return queryset, False
        brands = list(Brand.objects.values_list("pk", flat=True))
        in_a_brand = Q(brand_id__in=brands) | Q(brand_id__isnull=True)
        return queryset.filter(in_a_brand, order_id=term), False

    @admin.display(description="brand", ordering="brand__name")
    def brand_link(self, obj):
        return admin_link(obj.brand)

    @admin.display(description="as the brand sees it")
    def health_page(self, obj):
        if obj.brand_id is None:
            return "Not on any brand's health page (no brand resolved)."
        return format_html(
            '<a href="{}">Tracking health event page</a>', reverse("health:event", args=[obj.pk])
        )

    @admin.display(description="order and its decision")
    def order_decision(self, obj):
        """The order this event is about, linked, with the trace of the decision that stored it."""
        if obj.brand_id is None or not obj.order_id:
            return "–"
        order = Order.objects.filter(
            brand_id=obj.brand_id, order_id=obj.order_id, is_test=obj.is_test
        ).first()
        if order is None:
            return "No order was stored with this id."
        return format_html(
            "{}<div style='margin-top:.4em'>{}</div>", admin_link(order), trace_html(order.trace)
        )


@admin.register(DailyOutcomeCount)
class DailyOutcomeCountAdmin(ReadOnlyAdmin):
    list_display = ["day", "brand_link", "endpoint", "outcome", "is_test", "count"]
    list_filter = ["brand", "endpoint", OutcomeFilter, "is_test", "day"]
    list_select_related = ["brand"]
    date_hierarchy = "day"
    ordering = ["-day", "brand__name", "endpoint", "outcome"]
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = ["brand_link", "day", "endpoint", "outcome", "is_test", "count"]
    readonly_fields = fields

    @admin.display(description="brand", ordering="brand__name")
    def brand_link(self, obj):
        return admin_link(obj.brand)


@admin.register(RefusedDeliveryCount)
class RefusedDeliveryCountAdmin(ReadOnlyAdmin):
    """Deliveries a connection refused beyond the few an hour its brand's log keeps, counted per hour: a shop
    whose secret changed, or someone sending bad signatures in its name."""

    list_display = ["hour", "connection", "brand", "count"]
    list_filter = ["brand"]
    date_hierarchy = "hour"
    ordering = ["-hour", "-count"]
    list_per_page = 100


@admin.register(UnresolvedHostCount)
class UnresolvedHostCountAdmin(ReadOnlyAdmin):
    """Order confirmations of no brand beyond their address's limit, counted per host and hour instead of
    stored (docs/health.md, "Events of no brand"): which unknown hosts keep sending, and how much."""

    list_display = ["hour", "host", "count"]
    search_fields = ["host"]
    search_help_text = "Host, or part of it."
    date_hierarchy = "hour"
    ordering = ["-hour", "-count"]
    list_per_page = 100
