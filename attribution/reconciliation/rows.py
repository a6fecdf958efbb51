"""A book row as the matching judges it, and the COPY that writes a batch of them; the batches they are
judged and written in."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from itertools import islice

from attribution.models import BookRow
from attribution.orders.lines import NO_LINES, OrderLines, lines_as_text
from config.lib.sql import BulkInsert

BATCH = 1000


def batches(items: Iterable, size: int = BATCH) -> Iterator[list]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


@dataclass(slots=True)
class JudgedRow:
    """A book row as it is judged, written by write_rows (a model instance per row would cost more than the
    judging: bench/README.md)."""

    line: int
    order_id: str
    is_test: bool
    amount: Decimal | None
    currency: str
    cancelled: bool
    code: str
    click_id: str
    ordered_at: datetime | None
    status: str = ""
    detail: str = ""
    received: bool = False
    commission: Decimal | None = None
    lines: OrderLines = NO_LINES

    def values(self, brand_id: int, run_id: int) -> tuple:
        return (
            brand_id,
            run_id,
            self.line,
            self.order_id,
            self.is_test,
            str(self.status),
            self.detail,
            self.amount,
            self.currency,
            self.cancelled,
            self.received,
            self.code,
            self.click_id,
            self.ordered_at,
            self.commission,
            "",  # change: none until an apply
            "",
            lines_as_text(self.lines),
        )


# A batch of book rows in one COPY on PostgreSQL (config.lib.sql.BulkInsert).
write_rows = BulkInsert(
    BookRow,
    [
        "brand_id",
        "reconciliation_id",
        "line",
        "order_id",
        "is_test",
        "status",
        "detail",
        "amount",
        "currency",
        "cancelled",
        "received",
        "code",
        "click_id",
        "ordered_at",
        "commission",
        "change",
        "change_detail",
        "lines",
    ],
)
