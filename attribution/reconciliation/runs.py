"""Compare a brand's order book with the orders received: each book order falls in exactly one category
(docs/reconciliation.md), and the run keeps the summary. Reads and stores the run; changes nothing else.

The file is streamed: its orders are judged a batch at a time, each batch with a few queries (the orders
received, the outcome log's last word on those that were not, their clicks and codes), never one per
row. Repeated order ids, the counts, the capture rate by day and what is not in the book are then
computed by the database from the stored rows, so memory does not grow with the file. A file that
cannot be read stores nothing: the whole run is one transaction.

The reading is books/, the matching matching.py (with lookups.py), the COPY of the rows rows.py, and the run's
totals totals.py; this module runs them in order.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction

from attribution.models import BookRow, Reconciliation
from attribution.money import order_total
from brands.models import Brand

from .books import columns
from .books.errors import BookError
from .books.reader import open_book
from .lookups import host_of
from .matching import Judge
from .rows import batches, write_rows
from .totals import mark_repeats, summarize

Status = BookRow.Status


@dataclass
class Options:
    order_id_column: str = ""  # Shopify: "id" or "name"; empty: whichever this brand's orders match
    amount_column: str = ""  # Shopify: "subtotal" (default) or "total"
    # The brand's own columns, {field: header} (books.columns.FIELDS): each read whatever the format would read.
    column_map: dict[str, str] = field(default_factory=dict)

    ORDER_ID_COLUMNS = ("", "id", "name")
    AMOUNT_COLUMNS = ("", "subtotal", "total")

    def check(self) -> None:
        """BookError for a choice no format knows, whatever the file (a typo must not pass unnoticed)."""
        if self.order_id_column.lower() not in self.ORDER_ID_COLUMNS:
            raise BookError("order_id_column must be id or name (Shopify exports), or left out.")
        if self.amount_column.lower() not in self.AMOUNT_COLUMNS:
            raise BookError("amount_column must be subtotal or total (Shopify exports), or left out.")
        columns.check_map(self.column_map)
        for choice, name in (("order_id_column", "order_id"), ("amount_column", "amount")):
            if getattr(self, choice) and name in self.column_map:
                raise BookError(
                    f"{choice} chooses between Shopify's columns and {columns.MAP_PREFIX}{name} maps the "
                    "column: send one of them."
                )


def reconcile(
    *, brand: Brand, file, filename: str = "", key_prefix: str = "", user=None, options: Options | None = None
) -> Reconciliation:
    """Read the book in `file` (binary) and store the run with its rows; BookError when the file
    cannot be read, and then nothing is stored."""
    options = options or Options()
    options.check()
    book = open_book(
        file,
        order_id_column=options.order_id_column,
        amount_column=options.amount_column,
        column_map=options.column_map,
    )
    host = host_of(brand)
    with transaction.atomic():
        run = Reconciliation.objects.create(
            brand=brand,
            key_prefix=key_prefix,
            uploaded_by=user if user is not None and user.is_authenticated else None,
            filename=filename[:255],
            format=book.format,
            order_id_column=book.columns.order_id_name,
            amount_column=book.columns.amount_name,
            columns=dict(book.columns.headers),
            mapped_columns=list(book.columns.mapped),
        )
        judge = Judge(brand=brand, run=run, host=host)
        for batch in batches(book.orders()):
            judge.choose_order_id(book, batch)
            write_rows([row.values(brand.pk, run.pk) for row in judge.rows(batch)])
        run.row_count = book.rows
        mark_repeats(run)
        summarize(run)
        run.save()
    return run


def amount_text(value: Decimal | None, currency: str) -> str:
    return "" if value is None else order_total(value, currency)
