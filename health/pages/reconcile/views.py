"""The Reconcile page (/health/reconcile/, docs/reconciliation.md): upload the brand's order book, see what
each run found (counts, what the differences cost, the capture rate), its rows by category, download the
differences as CSV, and apply a run once. The brand is chosen by health.pages.access.brand_page; reads go
through health.pages.reconcile.queries; the work is attribution.reconciliation's, as for the API.
"""

from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from attribution.models import BookRow, Reconciliation
from attribution.outcomes import say
from attribution.reconciliation import applying, runs, summary
from attribution.reconciliation.books import columns
from attribution.reconciliation.books.columns import FIELDS, MAP_PREFIX
from attribution.reconciliation.books.errors import BookError
from attribution.reconciliation.books.reader import MAX_BYTES, MAX_ROWS, too_large
from config.lib.csvfiles import safe_cell, stream
from health.pages.access import brand_page
from health.pages.reconcile import queries as reconcile_queries

MB = MAX_BYTES // (1024 * 1024)


# The fields a brand may map to its own columns (books.columns.FIELDS), as the page names them.
MAP_LABELS = {
    "order_id": "Order id",
    "amount": "Amount",
    "currency": "Currency",
    "status": "Status",
    "code": "Discount code",
    "click_id": "Click id",
    "ordered_at": "Ordered at",
    "test": "Test order",
}
HEADERS_OFFERED = 200  # a header of more columns offers its first ones to map (a page, not a spreadsheet)


class UploadForm(forms.Form):
    file = forms.FileField(label="Order book (CSV)", allow_empty_file=True)  # an empty book is told as one
    order_id_column = forms.ChoiceField(
        label="Shopify: order id",
        required=False,
        choices=[("", "Whichever matches"), ("name", "Name (#1001)"), ("id", "Id")],
    )
    amount_column = forms.ChoiceField(
        label="Shopify: amount",
        required=False,
        choices=[("", "Subtotal (after discounts)"), ("total", "Total")],
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # "Map the columns": each field's header, judged by the reading (books.columns.check_map), not here.
        for name in FIELDS:
            self.fields[MAP_PREFIX + name] = forms.CharField(label=MAP_LABELS[name], required=False)

    def column_map(self) -> dict[str, str]:
        return {name: value for name in FIELDS if (value := self.cleaned_data[MAP_PREFIX + name])}


def _offered_headers(request, refused: BookError | None = None) -> list[str]:
    """The file's column names to map from: those of the file just refused for its header, else those the
    form carried from an earlier refusal (a browser does not keep the file, so the page keeps its names)."""
    if refused is not None and refused.header:
        names = refused.header
    elif request.method == "POST":
        names = columns.columns_named(request.POST.getlist("header"))
    else:
        names = []
    return names[:HEADERS_OFFERED]


def _map_fields(form: UploadForm, headers: list[str]) -> list[dict]:
    """Each mappable field with its value: what the brand sent, else the column a map would read unasked."""
    suggested = columns.suggest(headers) if headers else {}
    fields = []
    for name in FIELDS:
        bound = form[MAP_PREFIX + name]
        sent = (bound.value() or "").strip() if form.is_bound else ""
        fields.append(
            {
                "name": bound.html_name,
                "id": bound.id_for_label,
                "label": MAP_LABELS[name],
                "required": name in columns.GENERIC_REQUIRED,
                "value": sent or suggested.get(name, ""),
            }
        )
    return fields


def _page_of(run: Reconciliation, **query) -> str:
    return f"{reverse('health:reconciliation', args=[run.pk])}?{urlencode({'brand': run.brand_id, **query})}"


def _render_upload(
    request, chosen, form: UploadForm, *, error: str = "", status: int = 200, refused: BookError | None = None
):
    headers = _offered_headers(request, refused)
    map_fields = _map_fields(form, headers)
    return render(
        request,
        "health/reconcile.html",
        {
            **chosen.context,
            "form": form,
            "error": error,
            "headers": headers,
            "map_fields": map_fields,
            # Shown when it is needed: the file's header was refused, or the brand is mapping already.
            "map_open": bool(headers) or any(f["value"] for f in map_fields),
            "runs": reconcile_queries.runs_of(chosen.brand),
            "max_rows": MAX_ROWS,
            "max_mb": MB,
            "retention_days": settings.RETENTION_DAYS["reconciliations"],
        },
        status=status,
    )


@require_http_methods(["GET", "HEAD", "POST"])
@brand_page
def reconcile(request, chosen):
    if request.method != "POST":
        return _render_upload(request, chosen, UploadForm())
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_upload(request, chosen, form, error=say("book.choose_file"), status=400)
    if not chosen.brand.is_active:
        return _render_upload(request, chosen, form, error=say("reconciliation.brand_inactive"), status=400)
    upload = form.cleaned_data["file"]
    try:
        if upload.size > MAX_BYTES:
            raise too_large()
        run = runs.reconcile(
            brand=chosen.brand,
            file=upload.file,
            filename=upload.name or "",
            user=request.user,
            options=runs.Options(
                order_id_column=form.cleaned_data["order_id_column"],
                amount_column=form.cleaned_data["amount_column"],
                column_map=form.column_map(),
            ),
        )
    except BookError as exc:
        return _render_upload(request, chosen, form, error=exc.message, status=exc.status, refused=exc)
    messages.success(
        request, f"Reconciliation {run.pk}: {run.row_count:,} rows read. Nothing was changed yet."
    )
    return redirect(_page_of(run))


@require_safe
@brand_page(find=reconcile_queries.run_of)
def reconciliation(request, chosen, found, pk: int):
    status = request.GET.get("status", "")
    if status not in BookRow.Status.values:
        status = ""
    try:
        number = int(request.GET.get("page", "1"))
    except ValueError:
        number = 1
    rows = reconcile_queries.rows_page(found, status=status, number=number)
    said = summary.summary(found)
    return render(
        request,
        "health/reconciliation.html",
        {
            **chosen.context,
            "run": found,
            "said": said,
            "capture_percent": None if said["capture_rate"] is None else round(100 * said["capture_rate"], 1),
            "categories": [(value, label, getattr(found, value)) for value, label in BookRow.Status.choices],
            "status": status,
            "rows": rows,
            "page_query": urlencode({"brand": found.brand_id, **({"status": status} if status else {})}),
            "to_apply": found.missing + found.amount_mismatch + found.cancelled_at_brand,
            # Where each field was read from, and whether the brand mapped it.
            "columns_read": [
                (MAP_LABELS[name].lower(), header, name in said["mapped_columns"])
                for name, header in said["columns"].items()
                if header
            ],
        },
    )


@require_POST
@brand_page(find=reconcile_queries.run_of)
def apply(request, chosen, found, pk: int):
    if found.applied_at is None and not found.brand.is_active:
        messages.error(request, "This brand is inactive: nothing was applied. Ask your account manager.")
        return redirect(_page_of(found))
    try:
        applied = applying.apply(found, request_id=getattr(request, "request_id", ""), user=request.user)
    except applying.ApplyFailed:
        messages.error(
            request, "Applying failed on our side; what was applied before stays. Apply again to carry on."
        )
        return redirect(_page_of(found))
    text = summary.applied_message(applied.run, changes=applied.changes, already=applied.already)
    if applied.already:
        messages.info(request, text)
    else:
        messages.success(request, text)
    return redirect(_page_of(found))


DIFFERENCES_HEADER = [
    "line",
    "order_id",
    "status",
    "detail",
    "book_amount",
    "currency",
    "book_status",
    "code",
    "click_id",
    "ordered_at",
    "commission",
    "change",
    "change_detail",
    "test",
]


def _difference(row: BookRow) -> list:
    return [
        row.line,
        safe_cell(row.order_id),
        row.status,
        safe_cell(row.detail),
        "" if row.amount is None else runs.amount_text(row.amount, row.currency),
        row.currency,
        ("cancelled" if row.cancelled else "completed") if row.status != BookRow.Status.INVALID else "",
        safe_cell(row.code),
        row.click_id,
        row.ordered_at.isoformat() if row.ordered_at else "",
        "" if row.commission is None else runs.amount_text(row.commission, row.currency),
        row.change,
        safe_cell(row.change_detail),
        "true" if row.is_test else "false",
    ]


def _not_in_book(order) -> list:
    commission = getattr(order, "commission", None)
    return [
        "",
        safe_cell(order.order_id),
        "not_in_book",
        f"Received here on {order.received_at.isoformat()} ({order.outcome}); not in the book.",
        runs.amount_text(order.amount, order.currency),
        order.currency,
        "",
        safe_cell(order.code_sent),
        "",
        "",
        "" if commission is None else runs.amount_text(commission.amount, commission.currency),
        "",
        "",
        "false",
    ]


@require_safe
@brand_page(find=reconcile_queries.run_of)
def differences_csv(request, chosen, found, pk: int):
    """Every row that is not matched, then the orders received in the book's period that it lacks."""

    def lines():
        for row in reconcile_queries.differences(found):
            yield _difference(row)
        for order in reconcile_queries.not_in_book(found):
            yield _not_in_book(order)

    response = StreamingHttpResponse(
        stream(DIFFERENCES_HEADER, lines()), content_type="text/csv; charset=utf-8"
    )
    name = f"reconciliation-{slugify(found.brand.name) or found.brand_id}-{found.pk}-differences-{timezone.localtime():%Y%m%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
