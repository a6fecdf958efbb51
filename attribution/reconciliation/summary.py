"""A run and its rows as the API answers them and the health pages show them (docs/reconciliation.md)."""

from django.db.models import QuerySet

from attribution.models import BookRow, Reconciliation

from .books.columns import FIELDS

ROWS_PER_PAGE = 1000
NO_CHANGES = {"created": 0, "updated": 0, "cancelled": 0, "kept": 0}
COUNTS = ("matched", "amount_mismatch", "cancelled_at_brand", "missing", "invalid", "not_in_book")


def _when(value) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def summary(run: Reconciliation) -> dict:
    rate = run.capture_rate
    return {
        "id": run.pk,
        "format": run.format,
        "filename": run.filename,
        "created_at": _when(run.created_at),
        "order_id_column": run.order_id_column,
        "amount_column": run.amount_column,
        "columns": columns(run),
        "mapped_columns": list(run.mapped_columns or []),
        "row_count": run.row_count,
        "period": {"first": _when(run.period_start), "last": _when(run.period_end)},
        "counts": {name: getattr(run, name) for name in COUNTS},
        "book_orders": run.book_orders,
        "received": run.received,
        "capture_rate": round(rate, 4) if rate is not None else None,
        "commission_at_risk": run.commission_at_risk,
        "commission_difference": run.commission_difference,
        "applied": run.applied_at is not None,
        # Started and not finished: the task runner carries on (attribution.reconciliation.applying).
        "applying": run.apply_started_at is not None and run.applied_at is None,
        "applied_at": _when(run.applied_at),
        "changes": {**NO_CHANGES, **(run.changes or {})},
    }


def columns(run: Reconciliation) -> dict:
    """{field: header} for every field of a book: the header it was read from, or None when the file has no
    column for it (a run from before the map knows only its order id's and amount's)."""
    read = run.columns or {}
    return {name: read.get(name) for name in FIELDS} | {
        "order_id": run.order_id_column,
        "amount": run.amount_column,
    }


def row(book_row: BookRow) -> dict:
    found = {
        "line": book_row.line,
        "order_id": book_row.order_id,
        "status": book_row.status,
        "detail": book_row.detail,
    }
    if book_row.change:
        found["change"] = book_row.change
        found["change_detail"] = book_row.change_detail
    return found


def pages(run: Reconciliation, rows: QuerySet | None = None) -> int:
    count = (rows if rows is not None else run.rows).count()
    return max(1, -(-count // ROWS_PER_PAGE))


def page_of_rows(run: Reconciliation, page: int, *, status: str = "") -> list[dict]:
    rows = run.rows.all()
    if status:
        rows = rows.filter(status=status)
    start = (page - 1) * ROWS_PER_PAGE
    return [row(r) for r in rows.order_by("line")[start : start + ROWS_PER_PAGE]]


def applied_message(run: Reconciliation, *, changes: dict, already: bool) -> str:
    """What an apply says, on the API and the page alike: what this call changed, or that it changed nothing."""
    if already:
        return f"Reconciliation {run.pk} was already applied on {run.applied_at:%Y-%m-%d %H:%M} UTC; nothing changed."
    said = (
        f"{changes['created']} order(s) created, {changes['updated']} amount(s) updated, {changes['cancelled']} "
        f"commission(s) cancelled, {changes['kept']} row(s) left as they were (each row says why)"
    )
    if run.applied_at is not None:
        return f"Reconciliation {run.pk} applied: {said}."
    return (
        f"Reconciliation {run.pk} is being applied: so far {said}. The rest is applied in the background "
        "within minutes; read the reconciliation to follow it."
    )
