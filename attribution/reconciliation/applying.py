"""Apply a reconciliation: create the missing orders through the order confirmation's decision and writer,
set the drifted amounts and cancel what the book cancelled, through the commission's own writers. Each
change is an outcome row of the `reconciliation` endpoint whose body is the book's row (it names the run
and the line), so the order page shows where the change came from.

Once: the run's row is locked and stamped in the same transaction as every change, so a second apply,
or two at once, change nothing and say so. A locked or paid commission is never moved (its row says why):
once on a statement, a change is the brand's call, by a cancel or update event, billed as an adjustment.
"""

import json
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from attribution import orders
from attribution.models import BookRow, Commission, CommissionStateChange, Order, Reconciliation
from attribution.money import commission_amount, order_total
from attribution.outcomes import Outcome, Result, say
from config.lib.statements import Row
from health.log.models import Endpoint, OutcomeEvent
from health.log.recording import Receipt, row_values

from .matching import BATCH, BookLookups, _batches, _host_of, order_payload

Change = BookRow.Change
Status = BookRow.Status


@dataclass
class Applied:
    run: Reconciliation
    already: bool  # it had been applied before: this call changed nothing


def apply(run: Reconciliation, *, request_id: str = "", key_prefix: str = "", user=None) -> Applied:
    """Make the changes of `run` once; the run as applied."""
    at = timezone.now()
    with transaction.atomic():
        run = Reconciliation.objects.select_for_update().get(pk=run.pk)
        if run.applied_at is not None:
            return Applied(run, already=True)
        writer = _Writer(run=run, at=at, request_id=request_id, key_prefix=key_prefix)
        writer.create_missing()
        writer.change_commissions()
        run.applied_at = at
        run.applied_by = user if user is not None and user.is_authenticated else None
        run.changes = writer.changes
        run.save(update_fields=["applied_at", "applied_by", "changes"])
    return Applied(run, already=False)


class _Writer:
    def __init__(self, *, run: Reconciliation, at: datetime, request_id: str, key_prefix: str):
        self.run, self.at, self.request_id, self.key_prefix = run, at, request_id, key_prefix
        self.host = _host_of(run.brand)
        self.changes = {"created": 0, "updated": 0, "cancelled": 0}

    def _receipt(self, row: BookRow) -> Receipt:
        book_row = {
            "reconciliation": self.run.pk,
            "line": row.line,
            "order_id": row.order_id,
            "amount": str(row.amount) if row.amount is not None else None,
            "currency": row.currency,
            "status": "cancelled" if row.cancelled else "completed",
            "code": row.code or None,
            "click_id": row.click_id or None,
            "ordered_at": row.ordered_at.isoformat() if row.ordered_at else None,
            "test": row.is_test,
        }
        return Receipt(
            endpoint=Endpoint.RECONCILIATION,
            received_at=self.at,
            request_id=self.request_id,
            body=json.dumps(book_row).encode(),
            body_parsed=True,
            key_prefix=self.key_prefix,
        )

    def _note(self, row: BookRow, change: str, detail: str) -> None:
        row.change, row.change_detail = change, detail
        if change != Change.KEPT:
            self.changes[str(change)] += 1

    def create_missing(self) -> None:
        """Each missing order through the order confirmation's decision and writer, its click window judged
        when the book says it was placed."""
        rows = self.run.rows.filter(status=Status.MISSING).order_by("line").iterator(chunk_size=BATCH)
        for batch in _batches(rows, BATCH):
            lookups = BookLookups(self.run.brand_id, batch)
            for row in batch:
                if not self.host:
                    self._note(
                        row, Change.KEPT, "The brand has no registered property to record the order on."
                    )
                    continue
                result = orders.confirm_order(
                    payload=order_payload(row, host=self.host),
                    received_at=self.at,
                    receipt=self._receipt(row),
                    judged_at=row.ordered_at or self.at,
                    lookups=lookups,
                )
                if result.success and result.outcome != Outcome.DUPLICATE_ORDER:
                    self._note(row, Change.CREATED, f"{result.outcome}: {result.text}")
                else:
                    self._note(row, Change.KEPT, f"{result.outcome}: {result.text}")
            BookRow.objects.bulk_update(batch, ["change", "change_detail"])

    def change_commissions(self) -> None:
        """Drifted amounts and the book's cancels, on pending commissions only."""
        rows = self.run.rows.filter(status__in=[Status.AMOUNT_MISMATCH, Status.CANCELLED_AT_BRAND]).order_by(
            "line"
        )
        for batch in _batches(rows.iterator(chunk_size=BATCH), BATCH):
            found = {
                (c.order.order_id, c.is_test): c
                for c in Commission.objects.select_related("order").filter(
                    brand_id=self.run.brand_id,
                    order__in=Order.objects.filter(
                        brand_id=self.run.brand_id, order_id__in={row.order_id for row in batch}
                    ),
                )
            }
            for row in batch:
                self._change(row, found.get((row.order_id, row.is_test)))
            BookRow.objects.bulk_update(batch, ["change", "change_detail"])

    def _change(self, row: BookRow, commission: Commission | None) -> None:
        if commission is None or commission.state == Commission.State.CANCELLED:
            self._note(row, Change.KEPT, "No live commission any more: nothing to change.")
            return
        if commission.state != Commission.State.PENDING:
            self._note(
                row,
                Change.KEPT,
                f"The commission is {commission.state} (on a statement): a reconciliation does not move it. "
                "Send a cancel or an update event if the change should be billed as an adjustment.",
            )
            return
        result = Result(
            Outcome.TRACKED, "", brand_id=self.run.brand_id, order_id=row.order_id, is_test=row.is_test
        )
        at = max(self.at, commission.updated_at)
        try:
            if row.status == Status.CANCELLED_AT_BRAND:
                result.set(Outcome.TRACKED, say("reconciliation.cancelled", order_id=row.order_id))
                commission.move_to(
                    Commission.State.CANCELLED,
                    at=at,
                    cause=CommissionStateChange.Cause.RECONCILIATION,
                    request_id=self.request_id,
                    alongside=self._outcome_row(row, result),
                )
                self._note(row, Change.CANCELLED, result.text)
                return
            if row.currency != commission.currency:
                self._note(
                    row,
                    Change.KEPT,
                    f"The book's currency {row.currency} is not the order's {commission.currency}.",
                )
                return
            total = order_total(row.amount, row.currency)
            result.set(
                Outcome.TRACKED,
                say("reconciliation.updated", order_id=row.order_id, total=total, currency=row.currency),
            )
            commission.change_amount(
                row.amount,
                commission_amount(row.amount, commission.rate_percent, commission.currency),
                at=at,
                request_id=self.request_id,
                alongside=self._outcome_row(row, result),
            )
            self._note(row, Change.UPDATED, result.text)
        except Commission.StateChanged:
            self._note(
                row, Change.KEPT, "The commission changed while the book was applied; upload the book again."
            )

    def _outcome_row(self, row: BookRow, result: Result) -> tuple:
        return (Row(OutcomeEvent, row_values(self._receipt(row).event(result))),)
