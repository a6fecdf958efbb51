"""Admin helpers with no app knowledge: read-only log pages that stay fast on millions of rows, links, times."""

from datetime import date, datetime, timedelta

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import Max, Min, QuerySet
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.functional import cached_property
from django.utils.html import format_html


def saved_time(value, obj) -> str:
    """A creation time, or a dash for a row not saved yet: its default (now) would read as a past event."""
    if obj is None or obj.pk is None or value is None:
        return "–"
    return formats.localize(timezone.localtime(value))


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


def admin_link(obj):
    """A link to the object's admin page, or its name where the admin has no page for it."""
    if obj is None:
        return "–"
    try:
        url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    except NoReverseMatch:
        return str(obj)
    return format_html('<a href="{}">{}</a>', url, obj)
