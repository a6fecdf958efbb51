"""Reads behind the Reconcile page (/health/reconcile/) and the overview's capture rate: a brand's runs, one
run's rows a page at a time, its differences for the CSV download, and the capture rate by day. Every
function takes what health.pages.access allowed (the brand, or the brands the user may see)."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import QuerySet

from attribution.models import BookRow, Order, Reconciliation
from attribution.reconciliation import totals
from brands.models import Brand

RUNS_SHOWN = 50
ROWS_PER_PAGE = 100
DIFFERENCES = (
    BookRow.Status.MISSING,
    BookRow.Status.AMOUNT_MISMATCH,
    BookRow.Status.CANCELLED_AT_BRAND,
    BookRow.Status.INVALID,
)


def run_of(visible: QuerySet, *, pk: int) -> Reconciliation | None:
    """A run of a brand the user may see (health.pages.access.brand_page's `find`)."""
    return (
        Reconciliation.objects.select_related("brand", "uploaded_by", "applied_by")
        .filter(pk=pk, brand__in=visible)
        .first()
    )


def runs_of(brand: Brand) -> list[Reconciliation]:
    # reconciliation_brand_time_idx (brand, -created_at).
    return list(
        Reconciliation.objects.filter(brand=brand)
        .select_related("uploaded_by")
        .order_by("-created_at", "-id")[:RUNS_SHOWN]
    )


@dataclass
class RowsPage:
    rows: list[BookRow]
    number: int
    pages: int
    count: int

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None


def rows_page(run: Reconciliation, *, status: str, number: int) -> RowsPage:
    """One page of the run's rows in file order, of one category or all (book_row_status_idx, or
    book_row_line_unique); the count comes from the run's own counts, not a COUNT over its rows."""
    rows = run.rows.all()
    if status:
        rows = rows.filter(status=status)
        count = getattr(run, status)
    else:
        count = sum(getattr(run, s) for s in BookRow.Status.values)
    pages = max(1, -(-count // ROWS_PER_PAGE))
    number = min(max(number, 1), pages)
    start = (number - 1) * ROWS_PER_PAGE
    return RowsPage(list(rows.order_by("line")[start : start + ROWS_PER_PAGE]), number, pages, count)


def differences(run: Reconciliation) -> Iterator[BookRow]:
    """Every book row that is not matched, in file order, read in chunks (a CSV of 200,000 rows streams)."""
    return run.rows.filter(status__in=DIFFERENCES).order_by("line").iterator(chunk_size=2000)


def not_in_book(run: Reconciliation) -> Iterator[Order]:
    """The live orders received within the book's period that it lacks (the summary's `not_in_book`)."""
    return (
        totals.not_in_book(run)
        .select_related("commission")
        .order_by("received_at", "id")
        .iterator(chunk_size=2000)
    )


@dataclass(frozen=True)
class BookReceivedDay:
    """Of a day's completed orders in the brand's order book, how many arrived here (the capture rate), as
    the latest reconciliation covering the day found it."""

    day: date
    book_orders: int
    received: int
    run_id: int

    @property
    def rate(self) -> float:
        return self.received / self.book_orders

    @property
    def percent(self) -> float:
        return round(100 * self.rate, 1)


def book_received_by_day(brand: Brand, *, first_day: date, last_day: date) -> list[BookReceivedDay]:
    """The share of the book's completed orders that arrived, per day (UTC) of `first_day`..`last_day`, newest
    first, as the latest reconciliation covering each day found it."""
    start = datetime.combine(first_day, time.min, tzinfo=UTC)
    end = datetime.combine(last_day, time.min, tzinfo=UTC) + timedelta(days=1)
    # reconciliation_brand_time_idx (brand, -created_at): the runs whose books reach into the period.
    runs = (
        Reconciliation.objects.filter(brand=brand, period_start__lt=end, period_end__gte=start)
        .order_by("created_at", "id")
        .values_list("id", "daily_capture")
    )
    days: dict[date, BookReceivedDay] = {}
    for run_id, daily in runs:
        for text, (book_orders, received) in (daily or {}).items():
            day = date.fromisoformat(text)
            if first_day <= day <= last_day and book_orders:
                days[day] = BookReceivedDay(day, book_orders, received, run_id)  # a later run's count wins
    return sorted(days.values(), key=lambda d: d.day, reverse=True)
