"""Monthly statements (figures, the commissions and adjustments behind them, CSV export, "Mark paid") and
adjustments."""

from django.contrib import admin, messages
from django.http import Http404, StreamingHttpResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from ..billing import export, statements, writers
from ..fx.backfill import brand_currencies
from ..models import Adjustment, Statement
from ..money import in_minor_units
from .common import AdjustmentDisplay, HistoryInline, ReadOnlyAdmin


class StatementAdjustmentInline(AdjustmentDisplay, HistoryInline):
    model = Adjustment
    fk_name = "statement"
    fields = ["created_at", "order_link", "creator", "reason", "shown_amount", "request_id"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("commission__order", "commission__creator")


def _total_html(totals) -> str:
    """A statement's total on the list: in its brand's reporting currency, opening on each currency as billed,
    and what it leaves out (no rate)."""
    if not totals.figures:
        return "nothing due"
    reporting = totals.reporting
    return format_html(
        '<details class="per-currency"><summary><strong>{} {}</strong></summary>{}</details>{}',
        in_minor_units(reporting.total, reporting.currency),
        reporting.currency,
        format_html_join(
            mark_safe("<br>"),
            "{} {}",
            ((in_minor_units(f.total, f.currency), f.currency) for f in totals.figures),
        ),
        _left_out(reporting),
    )


def _left_out(reporting) -> str:
    if not reporting.apart:
        return ""
    return format_html('<p class="not-converted">Not in this total: {}</p>', reporting.left_out)


def _figures_table(
    table_id: str, keys: list[str], rows: list[tuple[tuple, object]], empty: str, reporting=None
):
    """A statement's figures (totals or per-creator lines) as an admin table: key cells, then amounts, then
    with `reporting` (the statement's InReporting) each line's amount in that currency."""
    extra = [f"in {reporting.currency}"] if reporting else []
    head = "".join(
        f"<th>{k}</th>" for k in [*keys, "commissions", "amount", "adjustments", "amount", "total", *extra]
    )
    cells = "<td>{}</td>" * (len(keys) + 4) + "<td><strong>{}</strong></td>" + "<td>{}</td>" * len(extra)
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
                *([_in_reporting(f, reporting)] if reporting else []),
            )
            for key, f in rows
        ),
    )
    empty_row = format_html('<tr><td colspan="{}">{}</td></tr>', len(keys) + 5 + len(extra), empty)
    return format_html(
        '<table id="{}"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        table_id,
        mark_safe(head),
        body or empty_row,
    )


def _in_reporting(line, reporting) -> str:
    if line.reporting is None:
        return "not converted"
    return f"{in_minor_units(line.reporting, reporting.currency)} {reporting.currency}"


@admin.register(Statement)
class StatementAdmin(ReadOnlyAdmin):
    """Monthly statements per brand: the total in the brand's reporting currency, lines per creator and
    currency, totals per currency, the commissions and adjustments behind them, a CSV export, and the "Mark
    paid" action."""

    list_display = ["brand", "month_label", "state", "total", "paid_at"]
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
        "reporting_total",
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
        # The whole page's totals in a fixed number of queries (attribution.billing.statements.totals_of),
        # each in its brand's reporting currency, instead of queries per row.
        shown = list(changelist.result_list)
        totals = _totals_of(shown)
        for statement in shown:
            statement.listed_totals = totals[statement.pk]
        return changelist

    @admin.display(description="month", ordering="month")
    def month_label(self, obj):
        return f"{obj.month:%Y-%m}"

    @admin.display(description="total (brand's reporting currency)")
    def total(self, obj):
        totals = getattr(obj, "listed_totals", None)
        if totals is None:
            totals = _totals_of([obj])[obj.pk]
        return _total_html(totals)

    def _summary(self, obj):
        if not hasattr(obj, "_summary_cache"):
            obj._summary_cache = statements.summarize(obj)
        return obj._summary_cache

    @admin.display(description="total in the brand's reporting currency")
    def reporting_total(self, obj):
        reporting = self._summary(obj).reporting
        return format_html(
            '<strong id="statement-reporting-total">{} {}</strong><p>{}</p>{}',
            in_minor_units(reporting.total, reporting.currency),
            reporting.currency,
            reporting.rates_used,
            _left_out(reporting),
        )

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
            reporting=self._summary(obj).reporting,
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
            export.csv_lines(statement, zone=timezone.get_current_timezone()),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{export.csv_filename(statement)}"'
        return response

    def has_pay_permission(self, request):
        return request.user.has_perm("attribution.pay_statement")

    @admin.action(description="Mark selected statements paid", permissions=["pay"])
    def mark_paid(self, request, queryset):
        now = timezone.now()
        for statement in queryset.select_related("brand").order_by("month", "pk"):
            payment = writers.pay_statement(statement_id=statement.pk, at=now, user=request.user)
            name = f"{statement.brand} {statement.month:%Y-%m}"
            if payment.done:
                self.message_user(
                    request, f"{name}: paid; {payment.paid} commissions moved to paid.", messages.SUCCESS
                )
            else:
                self.message_user(request, f"{name}: not paid. {payment.refused}", messages.WARNING)


def _totals_of(shown: list[Statement]) -> dict:
    return statements.totals_of(shown, brand_currencies({statement.brand_id for statement in shown}))


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
