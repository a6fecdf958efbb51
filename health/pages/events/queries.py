"""Reads behind the events list, an event's page and the CSV export (health.pages.events.views): every
function takes the brand (or brands) health.pages.access allowed."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db.models import Q

from attribution.models import Commission
from brands.models import Brand
from health.log.models import NEEDS_ACTION_OUTCOMES, OutcomeEvent
from health.pages.periods import start_of_day


@dataclass(frozen=True)
class EventFilters:
    outcome: str = ""
    endpoint: str = ""
    namespace: str = ""  # "", "live" or "test"
    date_from: date | None = None
    date_to: date | None = None
    order_id: str = ""  # the start of the order id (an exact id matches too)
    needs_action: bool = False  # only outcomes with a fix for the brand
    has_warnings: bool = False


LIST_FIELDS = (
    "id",
    "received_at",
    "endpoint",
    "order_id",
    "outcome",
    "http_status",
    "is_test",
    "has_warnings",
    "answered_outcome",
)
# The outcomes the brand can fix, as the overview's "Needs your action" lists them: the list the partial
# index outcome_brand_action_idx is built on, so the filter is one index range.
NEEDS_ACTION = NEEDS_ACTION_OUTCOMES


def events(brand: Brand, filters: EventFilters):
    """The brand's events matching `filters`, newest first (ties broken by id)."""
    qs = OutcomeEvent.objects.filter(brand=brand)
    if filters.order_id:
        # LIKE 'abc%': the (brand, order_id) index with its pattern operator class.
        qs = qs.filter(order_id__startswith=filters.order_id)
    if filters.has_warnings:
        qs = qs.filter(has_warnings=True)  # the partial index of warned events
    if filters.needs_action:
        qs = qs.filter(outcome__in=NEEDS_ACTION)
    if filters.outcome:
        qs = qs.filter(outcome=filters.outcome)
    if filters.endpoint:
        qs = qs.filter(endpoint=filters.endpoint)
    if filters.namespace:
        qs = qs.filter(is_test=filters.namespace == "test")
    if filters.date_from:
        qs = qs.filter(received_at__gte=start_of_day(filters.date_from))
    if filters.date_to:
        qs = qs.filter(received_at__lt=start_of_day(filters.date_to + timedelta(days=1)))
    return qs.order_by("-received_at", "-id")


@dataclass(frozen=True)
class Cursor:
    """A position in the newest-first list: the (received_at, id) of an event."""

    received_at: datetime
    id: int

    def encode(self) -> str:
        micros = (self.received_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
        return f"{micros}.{self.id}"

    @classmethod
    def decode(cls, text: str | None) -> "Cursor | None":
        try:
            micros, _, pk = (text or "").partition(".")
            when = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(micros))
            return cls(when, int(pk))
        except (ValueError, OverflowError):
            return None

    @classmethod
    def of(cls, row: dict) -> "Cursor":
        return cls(row["received_at"], row["id"])


@dataclass(frozen=True)
class EventPage:
    rows: list[dict]
    newer: Cursor | None  # link to the page of newer events, if any
    older: Cursor | None  # link to the page of older events, if any


def events_page(
    brand: Brand,
    filters: EventFilters,
    *,
    older_than: Cursor | None = None,
    newer_than: Cursor | None = None,
    size: int = 50,
) -> EventPage:
    """One page of events by keyset: one indexed range read, as fast on page 1000 as on page 1."""
    qs = events(brand, filters).values(*LIST_FIELDS)
    if newer_than is not None:
        t, pk = newer_than.received_at, newer_than.id
        rows = list(
            qs.filter(Q(received_at__gt=t) | Q(received_at=t, id__gt=pk), received_at__gte=t).order_by(
                "received_at", "id"
            )[: size + 1]
        )
        more_newer = len(rows) > size
        rows = rows[:size][::-1]
        return EventPage(
            rows,
            newer=Cursor.of(rows[0]) if rows and more_newer else None,
            older=Cursor.of(rows[-1]) if rows else newer_than,
        )
    if older_than is not None:
        t, pk = older_than.received_at, older_than.id
        qs = qs.filter(Q(received_at__lt=t) | Q(received_at=t, id__lt=pk), received_at__lte=t)
    rows = list(qs[: size + 1])
    more_older = len(rows) > size
    rows = rows[:size]
    return EventPage(
        rows,
        newer=(Cursor.of(rows[0]) if rows else older_than) if older_than is not None else None,
        older=Cursor.of(rows[-1]) if rows and more_older else None,
    )


def event(brands, pk: int) -> OutcomeEvent | None:
    """One event, only if it belongs to one of `brands` (a queryset or list of brands)."""
    return OutcomeEvent.objects.select_related("brand").filter(pk=pk, brand__in=brands).first()


def commission_of(brand: Brand, order_id: str, *, is_test: bool) -> Commission | None:
    """The commission of one of the brand's orders, with its state moves, or None (not attributed)."""
    if not order_id:
        return None
    return (
        Commission.objects.filter(brand=brand, order__order_id=order_id, order__is_test=is_test)
        .prefetch_related("state_changes")
        .first()
    )


EXPORT_FIELDS = (*LIST_FIELDS, "request_id", "warnings")
EXPORT_CHUNK_SIZE = 2000


def export_rows(brand: Brand, filters: EventFilters) -> Iterator[dict]:
    """Every matching event, streamed from the database in chunks (a server-side cursor on PostgreSQL)."""
    return events(brand, filters).values(*EXPORT_FIELDS).iterator(chunk_size=EXPORT_CHUNK_SIZE)
