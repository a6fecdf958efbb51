"""The outcome log and its counts for account managers: read-only, across brands."""

from datetime import date, datetime, timedelta

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import Max, Min, QuerySet
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import format_html

from attribution.outcomes import RECORDED

from .models import DailyOutcomeCount, OutcomeEvent

# The changelist counts at most this many rows: a COUNT(*) over millions of events would cost more
# than the page it labels. Narrow with the filters to reach older events.
COUNT_CAP = 10_000


class CappedCountPaginator(Paginator):
    @cached_property
    def count(self):
        return self.object_list.order_by()[:COUNT_CAP].count()


class CalendarQuerySet(QuerySet):
    """Date drill-down links from the first and last date (two index probes) instead of a
    SELECT DISTINCT over every row, which the admin's date_hierarchy would run on millions of events.
    A link may lead to a day without events; that costs an empty page, not a full scan."""

    def dates(self, field_name, kind, order="ASC"):
        return self._calendar(field_name, kind, order, as_datetimes=False)

    def datetimes(self, field_name, kind, order="ASC", tzinfo=None):
        return self._calendar(field_name, kind, order, as_datetimes=True, tzinfo=tzinfo)

    def _calendar(self, field_name, kind, order, *, as_datetimes, tzinfo=None):
        bounds = self.aggregate(first=Min(field_name), last=Max(field_name))
        first, last = bounds["first"], bounds["last"]
        if first is None or kind not in ("year", "month", "day"):
            return []
        if as_datetimes:
            zone = tzinfo or timezone.get_current_timezone()
            first, last = first.astimezone(zone).date(), last.astimezone(zone).date()
        steps = []
        current = _truncate(first, kind)
        while current <= last:
            steps.append(current)
            current = _next(current, kind)
        if as_datetimes:
            steps = [datetime(d.year, d.month, d.day, tzinfo=zone) for d in steps]
        return steps[::-1] if order == "DESC" else steps


def _truncate(day: date, kind: str) -> date:
    if kind == "year":
        return date(day.year, 1, 1)
    if kind == "month":
        return date(day.year, day.month, 1)
    return day


def _next(day: date, kind: str) -> date:
    if kind == "year":
        return date(day.year + 1, 1, 1)
    if kind == "month":
        return date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return day + timedelta(days=1)


class ReadOnlyAdmin(admin.ModelAdmin):
    """A log is evidence: nobody adds, edits or deletes rows by hand."""

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return CalendarQuerySet(model=qs.model, query=qs.query, using=qs._db)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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


def _brand_link(brand):
    if brand is None:
        return "–"
    try:
        url = reverse("admin:brands_brand_change", args=[brand.pk])
    except NoReverseMatch:
        return str(brand)
    return format_html('<a href="{}">{}</a>', url, brand)


@admin.register(OutcomeEvent)
class OutcomeEventAdmin(ReadOnlyAdmin):
    list_display = ["received_at", "brand_link", "endpoint", "outcome", "http_status", "order_id", "is_test"]
    list_filter = ["brand", "endpoint", OutcomeFilter, "is_test", "has_warnings", "received_at"]
    list_select_related = ["brand"]
    date_hierarchy = "received_at"
    # Exact and case-sensitive, like order ids themselves: served by the order id index
    # ("=order_id" would be iexact, an UPPER() that no index serves).
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

    @admin.display(description="brand", ordering="brand__name")
    def brand_link(self, obj):
        return _brand_link(obj.brand)

    @admin.display(description="as the brand sees it")
    def health_page(self, obj):
        if obj.brand_id is None:
            return "Not on any brand's health page (no brand resolved)."
        return format_html(
            '<a href="{}">Tracking health event page</a>', reverse("health:event", args=[obj.pk])
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
        return _brand_link(obj.brand)
