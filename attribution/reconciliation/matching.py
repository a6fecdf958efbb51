"""The matching: each book order matched against the orders received and judged (`Judge.rows`): its
category, and the sentence that says why (docs/reconciliation.md). A batch is judged with a few queries (the orders received, the outcome log's last
word on those that were not, their clicks and codes), never one per row."""

from datetime import UTC

from django.utils import timezone

from attribution.models import BookRow, Commission, Order, Reconciliation
from attribution.money import commission_amount, in_minor_units, money, order_total
from attribution.orders.whatif import would_earn
from attribution.outcomes import Outcome, say
from attribution.outcomes.endpoints import Endpoint
from brands.models import Brand
from health.log.models import OutcomeEvent

from .books.reader import Book, BookOrder
from .lookups import BookLookups, book_order
from .rows import JudgedRow

Status = BookRow.Status
LIVE = (Commission.State.HELD, Commission.State.PENDING, Commission.State.LOCKED, Commission.State.PAID)
# What a reconciliation moves, as a brand's cancel and update do (issue 38: a held one as a pending one).
MOVABLE = (Commission.State.HELD, Commission.State.PENDING)


class Judge:
    """A run's book orders judged a batch at a time (`rows`), Shopify's order id column chosen first."""

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

    def rows(self, batch: list[BookOrder]) -> list["JudgedRow"]:
        valid = [o for o in batch if not o.problem]
        received = self._received(valid)
        missing = [o for o in valid if (o.order_id, o.is_test) not in received and not o.cancelled]
        last_words = self._last_words(missing)
        lookups = BookLookups(self.brand.pk, missing)
        rows = []
        for order in batch:
            row = JudgedRow(
                order.line,
                order.order_id,
                order.is_test,
                order.amount,
                order.currency,
                order.cancelled,
                order.code[:255],
                order.click_id[:255],
                order.ordered_at,
                lines=order.lines,
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

    def _not_received(self, row: JudgedRow, last_word, lookups: BookLookups) -> None:
        if row.cancelled:
            row.status = Status.MATCHED
            row.detail = say("matching.cancelled_never_received")
            return
        row.status = Status.MISSING
        if last_word is None:
            said = say("matching.never_received")
        else:
            outcome, at = last_word
            said = say("matching.refused", at=f"{at.astimezone(UTC):%Y-%m-%d %H:%M}", outcome=outcome)
        if not self.host:
            row.detail = say("matching.no_property", said=said)
            return
        if self.brand.storefront_handles_orders:
            row.detail = say("matching.platform_records", said=said)
            return
        at = row.ordered_at or self.now
        order, _ = book_order(row, host=lookups.host_for(row, self.host), brand_id=self.brand.id)
        estimate = None if order is None else would_earn(order, at=at, lookups=lookups)
        if estimate is None:
            row.detail = say("matching.unresolved", said=said)
        elif estimate.outcome == Outcome.CLICK_NOT_FOUND:
            row.detail = say("matching.click_not_found", said=said)
        elif estimate.commission is not None:
            row.commission = estimate.commission
            row.detail = say(
                "matching.would_earn",
                said=said,
                commission=money(estimate.commission, row.currency),
                currency=row.currency,
            )
        else:
            row.detail = say("matching.would_record", said=said, outcome=estimate.outcome)

    def _received_row(self, row: JudgedRow, found: dict) -> None:
        state = found["state"]
        if row.cancelled:
            if state in LIVE:
                row.status = Status.CANCELLED_AT_BRAND
                row.detail = say("matching.cancelled_commission", state=state)
                if state not in MOVABLE:
                    row.detail += say("matching.not_moved")
            else:
                row.status = Status.MATCHED
                row.detail = say("matching.cancelled_none_live")
            return
        current = found["commission_order_amount"] if state is not None else found["amount"]
        currency = found["currency"]
        if row.currency != currency:
            row.status = Status.AMOUNT_MISMATCH if state in LIVE else Status.MATCHED
            row.detail = say("matching.currency_differs", book=row.currency, here=currency)
            return
        if in_minor_units(row.amount, currency) == in_minor_units(current, currency):
            row.status = Status.MATCHED
            if state == Commission.State.CANCELLED:
                row.detail = say("matching.completed_but_cancelled")
            return
        here, book = order_total(current, currency), order_total(row.amount, currency)
        if state not in LIVE:
            row.status = Status.MATCHED
            row.detail = say("matching.amount_differs_none_live", here=here, book=book)
            return
        row.status = Status.AMOUNT_MISMATCH
        # An estimate at the commission's effective rate (its plan's lines are re-priced when it is applied).
        row.commission = commission_amount(row.amount, found["rate"], currency) - found["commission_amount"]
        row.detail = say(
            "matching.amount_differs",
            here=here,
            book=book,
            currency=currency,
            change=money(row.commission, currency),
        )
        if state not in MOVABLE:
            row.detail += say("matching.commission_stays", state=state)
