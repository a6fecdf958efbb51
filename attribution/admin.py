"""Creator links, clicks, orders, commissions and billing statements for account managers. Orders,
commissions, statements and adjustments are read-only here: they change only through the services
(attribution.changes, attribution.billing, Commission.move_to), so their history stays complete. The one write is the
"Mark paid" action of statements, for users with the pay_statement permission."""

from django.contrib import admin, messages
from django.db import models
from django.http import Http404, StreamingHttpResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from config.lib.admin import saved_time
from config.lib.jsontext import indented

from . import billing, replay, selectors
from .models import (
    Adjustment,
    AmountChange,
    Click,
    Commission,
    CreatorLink,
    DeadLetter,
    Order,
    SpoolBacklog,
    Statement,
)
from .money import in_minor_units


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


class AmountChangeInline(admin.TabularInline):
    model = AmountChange
    extra = 0
    can_delete = False
    fields = ["changed_at", "old_order_amount", "new_order_amount", "old_amount", "new_amount", "request_id"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class AdjustmentDisplay:
    """Adjustment amounts in the currency's minor units, and the order they belong to."""

    @admin.display(description="amount")
    def shown_amount(self, obj):
        return f"{in_minor_units(obj.amount, obj.currency)} {obj.currency}"

    @admin.display(description="order")
    def order_link(self, obj):
        url = reverse("admin:attribution_commission_change", args=[obj.commission_id])
        return format_html('<a href="{}">{}</a>', url, obj.commission.order.order_id)

    @admin.display(description="creator")
    def creator(self, obj):
        return obj.commission.creator.name

    @admin.display(description="statement")
    def statement_month(self, obj):
        return f"{obj.statement.month:%Y-%m}"


class CommissionAdjustmentInline(AdjustmentDisplay, admin.TabularInline):
    model = Adjustment
    fk_name = "commission"
    extra = 0
    can_delete = False
    fields = ["created_at", "reason", "shown_amount", "statement_month", "request_id"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("statement")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Commission)
class CommissionAdmin(ReadOnlyAdmin):
    list_display = [
        "order",
        "brand",
        "creator",
        "state",
        "amount",
        "currency",
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
    inlines = [AmountChangeInline, CommissionAdjustmentInline]

    def lookup_allowed(self, lookup, value, request=None):
        # The statement page links here for the commissions behind it.
        return lookup == "statement__id__exact" or super().lookup_allowed(lookup, value, request)


class StatementAdjustmentInline(AdjustmentDisplay, admin.TabularInline):
    model = Adjustment
    fk_name = "statement"
    extra = 0
    can_delete = False
    fields = ["created_at", "order_link", "creator", "reason", "shown_amount", "request_id"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("commission__order", "commission__creator")

    def has_add_permission(self, request, obj=None):
        return False


def _figures_html(figures) -> str:
    if not figures:
        return "nothing due"
    return format_html_join(
        mark_safe("<br>"),
        "{} {}",
        ((in_minor_units(f.total, f.currency), f.currency) for f in figures),
    )


def _figures_table(table_id: str, keys: list[str], rows: list[tuple[tuple, object]], empty: str):
    """A statement's figures (totals or per-creator lines) as an admin table: key cells, then amounts."""
    head = "".join(
        f"<th>{k}</th>" for k in [*keys, "commissions", "amount", "adjustments", "amount", "total"]
    )
    cells = "<td>{}</td>" * (len(keys) + 4) + "<td><strong>{}</strong></td>"
    body = format_html_join(
        "",
        "<tr>" + cells + "</tr>",
        (
            (
                *key,
                f.commissions,
                in_minor_units(f.commission_total, f.currency),
                f.adjustments,
                in_minor_units(f.adjustment_total, f.currency),
                in_minor_units(f.total, f.currency),
            )
            for key, f in rows
        ),
    )
    empty_row = format_html('<tr><td colspan="{}">{}</td></tr>', len(keys) + 5, empty)
    return format_html(
        '<table id="{}"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        table_id,
        mark_safe(head),
        body or empty_row,
    )


@admin.register(Statement)
class StatementAdmin(ReadOnlyAdmin):
    """Monthly statements per brand: lines per creator and currency, totals per currency, the commissions
    and adjustments behind them, a CSV export, and the "Mark paid" action."""

    list_display = ["brand", "month_label", "state", "totals", "paid_at"]
    list_filter = ["state", "brand"]
    list_select_related = ["brand"]
    search_fields = ["brand__name"]
    date_hierarchy = "month"
    actions = ["mark_paid"]
    fields = [
        "brand",
        "month",
        "state",
        "created_at",
        "paid_at",
        "paid_by",
        "totals_table",
        "lines_table",
        "behind",
    ]
    readonly_fields = fields
    inlines = [StatementAdjustmentInline]

    def get_urls(self):
        export = self.admin_site.admin_view(self.export_view)
        return [
            path("<int:pk>/export.csv", export, name="attribution_statement_export"),
            *super().get_urls(),
        ]

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        # Totals of the whole page in two grouped queries instead of two per row.
        shown = list(changelist.result_list)
        totals = selectors.totals_of(shown)
        for statement in shown:
            statement.figures = totals[statement.pk]
        return changelist

    @admin.display(description="month", ordering="month")
    def month_label(self, obj):
        return f"{obj.month:%Y-%m}"

    @admin.display(description="total per currency")
    def totals(self, obj):
        figures = getattr(obj, "figures", None)
        if figures is None:
            figures = selectors.totals_of([obj])[obj.pk]
        return _figures_html(figures)

    def _summary(self, obj):
        if not hasattr(obj, "_summary_cache"):
            obj._summary_cache = selectors.summarize(obj)
        return obj._summary_cache

    @admin.display(description="totals per currency")
    def totals_table(self, obj):
        return _figures_table(
            "statement-totals",
            ["currency"],
            [((t.currency,), t) for t in self._summary(obj).totals],
            "nothing due",
        )

    @admin.display(description="lines per creator and currency")
    def lines_table(self, obj):
        return _figures_table(
            "statement-lines",
            ["creator", "currency"],
            [((line.creator, line.currency), line) for line in self._summary(obj).lines],
            "no lines",
        )

    @admin.display(description="behind the figures")
    def behind(self, obj):
        commissions = reverse("admin:attribution_commission_changelist") + f"?statement__id__exact={obj.pk}"
        export = reverse("admin:attribution_statement_export", args=[obj.pk])
        return format_html(
            '<a href="{}">Commissions on this statement</a> (adjustments are listed below) · '
            '<a href="{}">Export CSV</a> (every commission and adjustment)',
            commissions,
            export,
        )

    def export_view(self, request, pk: int):
        statement = Statement.objects.select_related("brand").filter(pk=pk).first()
        if statement is None or not self.has_view_permission(request, statement):
            raise Http404("No such statement.")
        response = StreamingHttpResponse(
            selectors.csv_lines(statement, zone=timezone.get_current_timezone()),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{selectors.csv_filename(statement)}"'
        return response

    def has_pay_permission(self, request):
        return request.user.has_perm("attribution.pay_statement")

    @admin.action(description="Mark selected statements paid", permissions=["pay"])
    def mark_paid(self, request, queryset):
        now = timezone.now()
        for statement in queryset.select_related("brand").order_by("month", "pk"):
            payment = billing.pay_statement(statement_id=statement.pk, at=now, user=request.user)
            name = f"{statement.brand} {statement.month:%Y-%m}"
            if payment.done:
                self.message_user(
                    request, f"{name}: paid; {payment.paid} commissions moved to paid.", messages.SUCCESS
                )
            else:
                self.message_user(request, f"{name}: not paid. {payment.refused}", messages.WARNING)


@admin.register(Adjustment)
class AdjustmentAdmin(AdjustmentDisplay, ReadOnlyAdmin):
    list_display = [
        "created_at",
        "brand",
        "order_link",
        "creator",
        "reason",
        "shown_amount",
        "statement_month",
    ]
    list_filter = ["reason", "brand"]
    list_select_related = ["brand", "commission__order", "commission__creator", "statement"]
    search_fields = ["commission__order__order_id", "request_id"]
    date_hierarchy = "created_at"
    raw_id_fields = ["commission", "statement"]


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
