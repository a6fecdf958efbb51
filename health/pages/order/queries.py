"""Reads behind the order page (/health/orders/<order id>): one of the brand's orders as received, its
commission with every state move and amount change, the statement that bills it, the adjustments after
payment, every event about it, and the reconciliations of the brand's order book that named it. Every function takes the brand health.pages.access allowed."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Case, When

from attribution.models import (
    Adjustment,
    AmountChange,
    BookRow,
    Commission,
    CommissionStateChange,
    Order,
    Statement,
)
from attribution.orders.whatif import decide_again
from attribution.outcomes.endpoints import ORDER_ENDPOINTS, Endpoint
from attribution.platforms.recording import decide_again as platform_decide_again
from brands.models import Brand, PlatformConnection
from health.log.models import OutcomeEvent
from health.pages.events.queries import LIST_FIELDS

EVENTS_SHOWN = 200
BOOK_ROWS_SHOWN = 20


@dataclass
class OrderPage:
    order_id: str
    is_test: bool
    order: Order | None
    commission: Commission | None = None
    state_changes: list[CommissionStateChange] = field(default_factory=list)
    amount_changes: list[AmountChange] = field(default_factory=list)
    statement: Statement | None = None
    adjustments: list[Adjustment] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)  # newest first
    more_events: bool = False
    # The event behind a request id (a state move, an amount change or an adjustment links to it).
    event_of_request: dict[str, int] = field(default_factory=dict)
    # The reconciliations whose book named the order, newest first: what each found, and what its apply did.
    book_rows: list[BookRow] = field(default_factory=list)


def order_page(brand: Brand, order_id: str, *, is_test: bool) -> OrderPage | None:
    """Everything about one order of `brand` in one namespace; None when neither an order nor an event has this id."""
    order = (
        Order.objects.select_related("creator", "property", "discount_code", "commission__statement")
        .filter(brand=brand, order_id=order_id, is_test=is_test)
        .first()
    )
    # outcome_brand_order_idx (brand, order_id): every event about the order, both found and refused.
    rows = list(
        OutcomeEvent.objects.filter(brand=brand, order_id=order_id, is_test=is_test)
        .order_by("-received_at", "-id")
        .values(*LIST_FIELDS, "request_id")[: EVENTS_SHOWN + 1]
    )
    # book_row_brand_order_idx (brand, order_id).
    book_rows = list(
        BookRow.objects.filter(brand=brand, order_id=order_id, is_test=is_test)
        .exclude(status=BookRow.Status.INVALID)
        .select_related("reconciliation")
        .order_by("-reconciliation__created_at", "-id")[:BOOK_ROWS_SHOWN]
    )
    if order is None and not rows and not book_rows:
        return None
    page = OrderPage(
        order_id,
        is_test,
        order,
        events=rows[:EVENTS_SHOWN],
        more_events=len(rows) > EVENTS_SHOWN,
        book_rows=book_rows,
    )
    page.event_of_request = {r["request_id"]: r["id"] for r in page.events if r["request_id"]}
    commission = getattr(order, "commission", None) if order is not None else None
    if commission is not None:
        page.commission = commission
        # statechange_commission_idx, amountchange_commission_idx, adjustment_commission_idx.
        page.state_changes = list(commission.state_changes.all())
        page.amount_changes = list(commission.amount_changes.all())
        page.adjustments = list(commission.adjustments.select_related("statement"))
        page.statement = commission.billed_statement
    return page


@dataclass
class WhatIf:
    """The stored decision's event judged again now (attribution.orders.whatif.decide_again); nothing is written."""

    outcome: str | None  # None when the event can no longer be judged (see `reason`)
    trace: list[dict] = field(default_factory=list)
    reason: str = ""


def what_if(order: Order, *, now: datetime) -> WhatIf:
    """Re-run the decision of `order` as it would be taken at `now`, under today's codes, clicks, creators and
    window, from the body of the order confirmation that created it as the outcome log keeps it."""
    if order.via_platform:
        return _platform_what_if(order, now=now)
    body = (
        OutcomeEvent.objects.filter(
            brand_id=order.brand_id,
            order_id=order.order_id,
            is_test=order.is_test,
            endpoint=Endpoint.ORDER_CONFIRMATION,
            outcome=order.outcome,
        )
        .order_by("received_at", "id")
        .values_list("request_body", flat=True)
        .first()
    )
    if body is None:
        if OutcomeEvent.objects.filter(
            brand_id=order.brand_id,
            order_id=order.order_id,
            is_test=order.is_test,
            endpoint=Endpoint.RECONCILIATION,
            outcome=order.outcome,
        ).exists():
            return WhatIf(
                None,
                reason="A reconciliation recorded this order from the brand's order book; what-if judges "
                "order confirmations only (the reconciliation's page shows what the book said).",
            )
        return WhatIf(
            None, reason="The order confirmation that created this order is no longer in the kept log."
        )
    decided = decide_again(body, at=now)
    if decided is None:
        return WhatIf(
            None, reason="The kept body no longer reaches a decision: its host or fields are refused today."
        )
    outcome, trace = decided
    return WhatIf(outcome, trace)


def _platform_what_if(order: Order, *, now: datetime) -> WhatIf:
    """A platform's order judged again from the order its webhook brought, as the outcome log kept it, read
    with the brand's connection of that platform (the one counting for the order's property first)."""
    # outcome_brand_order_idx (brand, order_id): the order's events, the first delivery that recorded it.
    row = (
        OutcomeEvent.objects.filter(
            brand_id=order.brand_id,
            order_id=order.order_id,
            is_test=order.is_test,
            endpoint__in=[e for e in ORDER_ENDPOINTS if e != Endpoint.ORDER_CONFIRMATION],
            outcome=order.outcome,
        )
        .order_by("received_at", "id")
        .values("endpoint", "request_body")
        .first()
    )
    if row is None or not row["request_body"]:
        return WhatIf(
            None, reason="The platform's delivery that brought this order is no longer in the kept log."
        )
    connection = (
        PlatformConnection.objects.filter(brand_id=order.brand_id, platform=row["endpoint"])
        .select_related("property")
        .order_by(Case(When(property_id=order.property_id, then=0), default=1), "id")
        .first()
    )
    if connection is None:
        return WhatIf(
            None, reason="The brand no longer has a connection of the platform that sent this order."
        )
    decided = platform_decide_again(row["endpoint"], row["request_body"], connection, at=now)
    if decided is None:
        return WhatIf(
            None, reason="The kept order no longer reaches a decision: its fields are refused today."
        )
    outcome, trace = decided
    return WhatIf(outcome, trace)
