"""Compare a brand's order book with the orders received: each book order falls in exactly one category
(docs/reconciliation.md), and the run keeps the summary. Reads and stores the run; changes nothing else.

The file is streamed: its orders are judged a batch at a time, each batch with a few queries (the orders
received, the outcome log's last word on those that were not, their clicks and codes), never one per
row. Repeated order ids, the counts, the capture rate by day and what is not in the book are then
computed by the database from the stored rows, so memory does not grow with the file. A file that
cannot be read stores nothing: the whole run is one transaction.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from itertools import islice

from django.db import transaction
from django.db.models import CharField, Count, F, Max, Min, OuterRef, Q, Subquery, Sum, TextField, Value
from django.db.models.functions import Cast, Concat, Lower, TruncDate
from django.utils import timezone

from attribution import orders
from attribution.models import BookRow, Click, Commission, Order, Reconciliation
from attribution.money import commission_amount, in_minor_units, money, order_total
from attribution.outcomes import Outcome
from brands.models import Brand, DiscountCode
from config.lib.statements import BulkInsert
from health.log.models import Endpoint, OutcomeEvent

from . import formats
from .formats import Book, BookError, BookOrder, open_book

Status = BookRow.Status
BATCH = 1000
LIVE = (Commission.State.HELD, Commission.State.PENDING, Commission.State.LOCKED, Commission.State.PAID)
# What a reconciliation moves, as a brand's cancel and update do (issue 38: a held one as a pending one).
MOVABLE = (Commission.State.HELD, Commission.State.PENDING)


class BookLookups(orders.Lookups):
    """The decision's reads for a batch of book orders, made once for the batch. A book names no shopper."""

    def __init__(self, brand_id: int, book_orders: list):
        self.brand_id = brand_id
        click_ids = {o.click_id for o in book_orders if o.click_id}
        codes = {o.code.lower() for o in book_orders if o.code}
        self.clicks = (
            {
                click.click_id: click
                for click in Click.objects.filter(click_id__in=click_ids).annotate(
                    creator_is_active=F("creator__is_active"),
                    creator_name=F("creator__name"),
                    creator_email_hash=F("creator__email_hash"),  # issue 38: the self_referral rule
                    property_host=F("property__host"),
                )
            }
            if click_ids
            else {}
        )
        self.codes = (
            {
                code.code.lower(): code
                for code in DiscountCode.objects.annotate(
                    lowered=Lower("code"),
                    creator_is_active=F("creator__is_active"),
                    creator_name=F("creator__name"),
                    creator_email_hash=F("creator__email_hash"),  # issue 38: the self_referral rule
                ).filter(brand_id=brand_id, lowered__in=codes)
            }
            if codes
            else {}
        )

    def click(self, click_id):
        return self.clicks.get(click_id)

    def code(self, brand_id, code):
        return self.codes.get(code.lower())

    def shopper(self, brand_id, email_hash):
        return None

    def host_for(self, row, primary: str) -> str:
        """The host a book order is judged on: its click's property when the click is the brand's (a book
        does not say which storefront took the order; the click's is where the shopper went), else the
        brand's primary property."""
        click = self.clicks.get(row.click_id) if row.click_id else None
        if click is not None and click.brand_id == self.brand_id and click.property_host:
            return click.property_host
        return primary


def order_payload(row, *, host: str) -> dict:
    """A book order as the order confirmation it stands for: what the decision judges (`row` is a
    BookOrder or a stored BookRow; `host` from BookLookups.host_for)."""
    return {
        "orderId": row.order_id,
        "orderAmount": str(row.amount),
        "currency": row.currency,
        "test": row.is_test,
        "code": row.code or None,
        "clickId": row.click_id or None,
        "domain": host,
    }


@dataclass
class Options:
    order_id_column: str = ""  # Shopify: "id" or "name"; empty: whichever this brand's orders match
    amount_column: str = ""  # Shopify: "subtotal" (default) or "total"
    # The brand's own columns, {field: header} (formats.FIELDS): each read whatever the format would read.
    column_map: dict[str, str] = field(default_factory=dict)

    ORDER_ID_COLUMNS = ("", "id", "name")
    AMOUNT_COLUMNS = ("", "subtotal", "total")

    def check(self) -> None:
        """BookError for a choice no format knows, whatever the file (a typo must not pass unnoticed)."""
        if self.order_id_column.lower() not in self.ORDER_ID_COLUMNS:
            raise BookError("order_id_column must be id or name (Shopify exports), or left out.")
        if self.amount_column.lower() not in self.AMOUNT_COLUMNS:
            raise BookError("amount_column must be subtotal or total (Shopify exports), or left out.")
        formats.check_map(self.column_map)
        for choice, name in (("order_id_column", "order_id"), ("amount_column", "amount")):
            if getattr(self, choice) and name in self.column_map:
                raise BookError(
                    f"{choice} chooses between Shopify's columns and {formats.MAP_PREFIX}{name} maps the "
                    "column: send one of them."
                )


def reconcile(
    *, brand: Brand, file, filename: str = "", key_prefix: str = "", user=None, options: Options | None = None
) -> Reconciliation:
    """Read the book in `file` (binary) and store the run with its rows; formats.BookError when the file
    cannot be read, and then nothing is stored."""
    options = options or Options()
    options.check()
    book = open_book(
        file,
        order_id_column=options.order_id_column,
        amount_column=options.amount_column,
        column_map=options.column_map,
    )
    host = _host_of(brand)
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
        judge = _Judge(brand=brand, run=run, host=host)
        for batch in _batches(book.orders(), BATCH):
            judge.choose_order_id(book, batch)
            write_rows([row.values(brand.pk, run.pk) for row in judge.rows(batch)])
        run.row_count = book.rows
        _mark_repeats(run)
        _summarize(run)
        run.save()
    return run


def _host_of(brand: Brand) -> str:
    prop = brand.primary_property()
    return prop.host if prop is not None else ""


def _batches(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


@dataclass(slots=True)
class _Row:
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
        )


# A batch of book rows in one COPY on PostgreSQL (config.lib.statements.BulkInsert).
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
    ],
)


class _Judge:
    def __init__(self, *, brand: Brand, run: Reconciliation, host: str):
        self.brand, self.run, self.host = brand, run, host
        self.order_id_column = ""
        self.now = timezone.now()

    def choose_order_id(self, book: Book, batch: list[BookOrder]) -> None:
        """Shopify without a choice: keep Id or Name, whichever more of the first batch's orders match here."""
        if book.columns.alt_order_id is None or self.order_id_column:
            if self.order_id_column == "alt":
                for order in batch:
                    order.order_id, order.alt_order_id = order.alt_order_id or order.order_id, order.order_id
            return
        first = {o.order_id for o in batch if o.order_id}
        other = {o.alt_order_id for o in batch if o.alt_order_id}
        found = set(
            Order.objects.filter(brand_id=self.brand.pk, order_id__in=first | other).values_list(
                "order_id", flat=True
            )
        )
        if len(found & other) > len(found & first):
            self.order_id_column = "alt"
            self.run.order_id_column = "Name" if book.columns.order_id_name == "Id" else "Id"
            self.run.columns = {**self.run.columns, "order_id": self.run.order_id_column}
            self.choose_order_id(book, batch)
        else:
            self.order_id_column = "first"

    def rows(self, batch: list[BookOrder]) -> list["_Row"]:
        valid = [o for o in batch if not o.problem]
        received = self._received(valid)
        missing = [o for o in valid if (o.order_id, o.is_test) not in received and not o.cancelled]
        last_words = self._last_words(missing)
        lookups = BookLookups(self.brand.pk, missing)
        rows = []
        for order in batch:
            row = _Row(
                order.line,
                order.order_id,
                order.is_test,
                order.amount,
                order.currency,
                order.cancelled,
                order.code[:255],
                order.click_id[:255],
                order.ordered_at,
            )
            if order.problem:
                row.status, row.detail = Status.INVALID, order.problem
            else:
                found = received.get((order.order_id, order.is_test))
                row.received = found is not None
                if found is None:
                    self._not_received(row, last_words.get(order.order_id), lookups)
                else:
                    self._received_row(row, found)
            rows.append(row)
        return rows

    def _received(self, batch: list[BookOrder]) -> dict:
        """The batch's orders received here, with their commission (order_unique_per_brand_namespace)."""
        ids = {o.order_id for o in batch}
        if not ids:
            return {}
        found = Order.objects.filter(brand_id=self.brand.pk, order_id__in=ids).values_list(
            "order_id",
            "is_test",
            "amount",
            "currency",
            "commission__state",
            "commission__order_amount",
            "commission__amount",
            "commission__rate_percent",
        )
        return {
            (order_id, is_test): {
                "amount": amount,
                "currency": currency,
                "state": state,
                "commission_order_amount": order_amount,
                "commission_amount": commission,
                "rate": rate,
            }
            for order_id, is_test, amount, currency, state, order_amount, commission, rate in found
        }

    def _last_words(self, missing: list[BookOrder]) -> dict:
        """What the outcome log last said about each order id never stored: its order confirmations refused."""
        ids = {o.order_id for o in missing}
        if not ids:
            return {}
        words = {}
        events = (
            OutcomeEvent.objects.filter(
                brand_id=self.brand.pk, endpoint=Endpoint.ORDER_CONFIRMATION, order_id__in=ids
            )
            .order_by("received_at")
            .values_list("order_id", "outcome", "received_at")
        )
        for order_id, outcome, received_at in events:
            words[order_id] = (outcome, received_at)
        return words

    def _not_received(self, row: _Row, last_word, lookups: BookLookups) -> None:
        if row.cancelled:
            row.status = Status.MATCHED
            row.detail = "Cancelled in the book and never received here: nothing to recover."
            return
        row.status = Status.MISSING
        if last_word is None:
            said = "Never received: no order confirmation with this order id arrived."
        else:
            outcome, at = last_word
            said = (
                f"An order confirmation arrived on {at.astimezone(UTC):%Y-%m-%d %H:%M} UTC and was refused: "
                f"{outcome}. Its event page says what to fix."
            )
        if not self.host:
            row.detail = f"{said} No estimate: the brand has no registered property to judge it on."
            return
        if self.brand.storefront_handles_orders:
            row.detail = (
                f"{said} Your storefront platform's integration records your orders: applying leaves it to "
                "that integration."
            )
            return
        at = row.ordered_at or self.now
        payload = order_payload(row, host=lookups.host_for(row, self.host))
        estimate = orders.would_earn(payload, at=at, lookups=lookups)
        if estimate is None:
            row.detail = f"{said} No estimate: the brand's property no longer resolves to it."
        elif estimate.outcome == Outcome.CLICK_NOT_FOUND:
            row.detail = (
                f"{said} Its click id matches no click here, so applying would refuse it as an order "
                "confirmation is refused (click_not_found). Fix: correct the click id in the book, or leave "
                "it empty, and upload again."
            )
        elif estimate.commission is not None:
            row.commission = estimate.commission
            row.detail = f"{said} It would earn a commission of {money(estimate.commission, row.currency)} {row.currency}."
        else:
            row.detail = f"{said} It would be recorded as {estimate.outcome}, without a commission."

    def _received_row(self, row: _Row, found: dict) -> None:
        state = found["state"]
        if row.cancelled:
            if state in LIVE:
                row.status = Status.CANCELLED_AT_BRAND
                row.detail = f"Cancelled in the book; its commission here is {state}."
                if state not in MOVABLE:
                    row.detail += " A locked or paid commission is not moved by a reconciliation."
            else:
                row.status = Status.MATCHED
                row.detail = "Cancelled in the book; no live commission here."
            return
        current = found["commission_order_amount"] if state is not None else found["amount"]
        currency = found["currency"]
        if row.currency != currency:
            row.status = Status.AMOUNT_MISMATCH if state in LIVE else Status.MATCHED
            row.detail = f"The book says {row.currency}; the order here is in {currency}."
            return
        if in_minor_units(row.amount, currency) == in_minor_units(current, currency):
            row.status = Status.MATCHED
            if state == Commission.State.CANCELLED:
                row.detail = "Completed in the book; its commission here was cancelled."
            return
        here, book = order_total(current, currency), order_total(row.amount, currency)
        if state not in LIVE:
            row.status = Status.MATCHED
            row.detail = (
                f"The amount differs ({here} here, {book} in the book); no live commission depends on it."
            )
            return
        row.status = Status.AMOUNT_MISMATCH
        row.commission = commission_amount(row.amount, found["rate"], currency) - found["commission_amount"]
        row.detail = (
            f"The amount differs: {here} {currency} here, {book} {currency} in the book; the commission would "
            f"change by {money(row.commission, currency)} {currency}."
        )
        if state not in MOVABLE:
            row.detail += f" Its commission is {state}: a reconciliation does not move it."


def _mark_repeats(run: Reconciliation) -> None:
    """A book order id (in one namespace) counts once: its later rows are invalid, naming the first. One
    aggregate over the run's rows finds the repeated ids; they are marked a thousand ids per UPDATE, so a
    book of repeats costs a statement per thousand of them, never one per row."""
    rows = BookRow.objects.filter(reconciliation=run).exclude(status=Status.INVALID)
    repeated = (
        rows.values("order_id", "is_test")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("order_id", flat=True)
        .order_by()
    )
    first = (
        rows.filter(order_id=OuterRef("order_id"), is_test=OuterRef("is_test"))
        .order_by("line")
        .values("line")[:1]
    )
    for chunk in _batches(repeated.iterator(), BATCH):
        # A row is a repeat when its namespace holds an earlier one: the subquery keeps them apart.
        rows.filter(order_id__in=chunk).alias(first_line=Subquery(first)).filter(
            line__gt=F("first_line")
        ).update(
            status=Status.INVALID,
            received=False,
            commission=None,
            detail=Concat(
                Value("The order id repeats line "),
                Cast(Subquery(first), output_field=CharField()),
                Value("; only that row counts."),
                output_field=TextField(),
            ),
        )


def _summarize(run: Reconciliation) -> None:
    rows = BookRow.objects.filter(reconciliation=run)
    counts = dict(rows.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    for status in Status.values:
        setattr(run, status, counts.get(status, 0))
    valid = rows.exclude(status=Status.INVALID)
    figures = valid.aggregate(first=Min("ordered_at"), last=Max("ordered_at"))
    run.period_start, run.period_end = figures["first"], figures["last"]
    # The capture rate counts the orders the book completed (docs/decisions.md, "Reconciliation: the
    # capture rate and its normal"): a cancelled one may never have reached the thank-you page.
    completed = valid.filter(cancelled=False)
    captured = completed.aggregate(book=Count("id"), received=Count("id", filter=Q(received=True)))
    run.book_orders, run.received = captured["book"], captured["received"]
    run.daily_capture = {
        day.isoformat(): [book, received]
        for day, book, received in completed.filter(ordered_at__isnull=False)
        .annotate(day=TruncDate("ordered_at", tzinfo=UTC))
        .values("day")
        .annotate(book=Count("id"), received=Count("id", filter=Q(received=True)))
        .values_list("day", "book", "received")
        .order_by("day")
    }
    run.commission_at_risk = _per_currency(rows.filter(status=Status.MISSING))
    run.commission_difference = _per_currency(rows.filter(status=Status.AMOUNT_MISMATCH))
    run.not_in_book = _not_in_book(run)


def _per_currency(rows) -> list[dict]:
    sums = (
        rows.filter(commission__isnull=False)
        .values("currency")
        .annotate(total=Sum("commission"))
        .order_by("currency")
    )
    return [
        {"currency": s["currency"], "amount": money(s["total"], s["currency"])} for s in sums if s["total"]
    ]


def _not_in_book(run: Reconciliation) -> int:
    """Live orders received from the book's first ordered_at to its last that the book lacks. An export
    ends when it was made: an order received after its last order is newer than the book, not missing from it."""
    if run.period_start is None:
        return 0
    in_book = BookRow.objects.filter(reconciliation=run, is_test=False).values("order_id")
    # order_brand_time_idx (brand, -received_at): the period's orders, against the run's ids read by
    # book_row_status_idx and hashed once.
    return (
        Order.objects.filter(
            brand_id=run.brand_id,
            is_test=False,
            received_at__gte=run.period_start,
            received_at__lte=run.period_end,
        )
        .exclude(order_id__in=in_book)
        .count()
    )


def amount_text(value: Decimal | None, currency: str) -> str:
    return "" if value is None else order_total(value, currency)
