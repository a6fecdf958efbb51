"""Apply a reconciliation: create the missing orders through the order confirmation's decision and writer,
set the drifted amounts and cancel what the book cancelled, through the commission's own writers. Each
change is an outcome row of the `reconciliation` endpoint whose body is the book's row (it names the run
and the line), so the order page shows where the change came from.

Once, a batch at a time. Each batch is one transaction that holds the run's row lock, makes its rows'
changes and marks those rows done (`BookRow.change`) with them; a row marked done is never taken again.
So a second apply, or two at once, change nothing twice, and an apply stopped half-way (a time budget
spent, a process killed) resumes where it stopped: what was done stays done, whole. The run is applied
(`applied_at`) once no row is left. A request applies for APPLY_SECONDS at most; the task runner carries
on with the rest (health.tasks.continue_reconciliations).

A locked or paid commission is never moved (its row says why): once on a statement, a change is the
brand's call, by a cancel or update event, billed as an adjustment.
"""

import json
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from attribution.models import (
    BookRow,
    Commission,
    CommissionHold,
    CommissionStateChange,
    Order,
    Reconciliation,
)
from attribution.money import order_total
from attribution.orders.confirmation import confirm
from attribution.outcomes import Outcome, Result, say
from attribution.outcomes.endpoints import Endpoint
from attribution.plans.repricing import reprice
from config.lib.sql import Row
from health.log.models import OutcomeEvent
from health.log.writer import Receipt, row_values

from .lookups import BookLookups, book_order, host_of
from .rows import BATCH
from .summary import NO_CHANGES

Change = BookRow.Change
Status = BookRow.Status
TO_APPLY = (Status.MISSING, Status.AMOUNT_MISMATCH, Status.CANCELLED_AT_BRAND)


class ApplyFailed(Exception):
    """The database refused a change: the batch in progress was rolled back whole; what earlier batches did
    stays, and the next apply carries on from there."""


@dataclass
class Applied:
    run: Reconciliation
    already: bool  # it had been applied before this call: nothing changed
    changes: dict = field(default_factory=lambda: dict(NO_CHANGES))  # what this call changed

    @property
    def finished(self) -> bool:
        return self.run.applied_at is not None


def apply(
    run: Reconciliation,
    *,
    request_id: str = "",
    key_prefix: str = "",
    user=None,
    seconds: float | None = None,
) -> Applied:
    """Make the changes of `run`, a batch at a time, for `seconds` at most (settings.RECONCILIATION_APPLY_SECONDS);
    what this call changed, and the run as it stands (`finished` once every row is done)."""
    budget = settings.RECONCILIATION_APPLY_SECONDS if seconds is None else seconds
    started = time.monotonic()
    done = Applied(run, already=run.applied_at is not None)
    if done.already:
        return done
    user = user if user is not None and user.is_authenticated else None
    while True:
        with transaction.atomic():
            run = Reconciliation.objects.select_for_update().get(pk=run.pk)
            done.run = run
            if run.applied_at is not None:  # finished by a racing apply meanwhile
                done.already = not any(done.changes.values())
                return done
            if run.apply_started_at is None:
                run.apply_started_at, run.applied_by = timezone.now(), user
            rows = list(
                run.rows.filter(status__in=TO_APPLY, change="").order_by("line")[:BATCH]
            )  # book_row_status_idx
            batch = _Batch(run=run, at=timezone.now(), request_id=request_id, key_prefix=key_prefix)
            batch.apply(rows)
            for name, n in batch.changes.items():
                done.changes[name] += n
            run.changes = {name: (run.changes or {}).get(name, 0) + n for name, n in batch.changes.items()}
            if len(rows) < BATCH:
                run.applied_at = batch.at
            run.save(update_fields=["apply_started_at", "applied_by", "applied_at", "changes"])
        if run.applied_at is not None or time.monotonic() - started >= budget:
            return done


def unfinished() -> list[int]:
    """Runs whose apply started and has rows left (the task runner carries them on)."""
    # reconciliation_applying_idx: the few runs being applied.
    return list(
        Reconciliation.objects.filter(apply_started_at__isnull=False, applied_at__isnull=True)
        .order_by("apply_started_at")
        .values_list("pk", flat=True)
    )


class _Batch:
    """The changes of one batch of book rows, in the caller's transaction."""

    def __init__(self, *, run: Reconciliation, at: datetime, request_id: str, key_prefix: str):
        self.run, self.at, self.request_id, self.key_prefix = run, at, request_id, key_prefix
        self.host = host_of(run.brand)
        self.changes = dict(NO_CHANGES)

    def apply(self, rows: list[BookRow]) -> None:
        missing = [row for row in rows if row.status == Status.MISSING]
        if missing:
            self._create(missing)
        changed = [row for row in rows if row.status != Status.MISSING]
        if changed:
            self._change_commissions(changed)
        BookRow.objects.bulk_update(rows, ["change", "change_detail"])

    def _note(self, row: BookRow, change: str, detail: str) -> None:
        row.change, row.change_detail = change, detail
        self.changes[str(change)] += 1

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

    def _create(self, rows: list[BookRow]) -> None:
        """Each missing order through the order confirmation's decision and writer, its click window judged
        when the book says it was placed; its outcome row written with it."""
        if not self.host:
            for row in rows:
                self._note(row, Change.KEPT, "The brand has no registered property to record the order on.")
            return
        if self.run.brand.storefront_handles_orders:
            for row in rows:
                self._note(
                    row,
                    Change.KEPT,
                    "Your storefront platform's integration records your orders: send this one from there.",
                )
            return
        lookups = BookLookups(self.run.brand_id, rows)
        for row in rows:
            order, refusal = book_order(
                row, host=lookups.host_for(row, self.host), brand_id=self.run.brand_id
            )
            if order is None:
                self._note(row, Change.KEPT, "Not created ({}): {}".format(*refusal))
                continue
            result = confirm(
                order,
                received_at=self.at,
                receipt=self._receipt(row),
                judged_at=row.ordered_at or self.at,
                lookups=lookups,
            )
            if result.outcome == Outcome.INSERT_FAILED:
                raise ApplyFailed(f"line {row.line}: {result.text}")
            if result.recorded and result.outcome != Outcome.DUPLICATE_ORDER:
                self._note(row, Change.CREATED, f"{result.outcome}: {result.text}")
            elif result.outcome == Outcome.DUPLICATE_ORDER:
                self._note(row, Change.KEPT, "Received since the upload: nothing to create.")
            else:
                self._note(row, Change.KEPT, f"Not created ({result.outcome}): {result.text}")

    def _change_commissions(self, rows: list[BookRow]) -> None:
        """Drifted amounts and the book's cancels, on pending commissions only."""
        found = {
            (c.order.order_id, c.is_test): c
            for c in Commission.objects.select_related("order").filter(
                brand_id=self.run.brand_id,
                order__in=Order.objects.filter(
                    brand_id=self.run.brand_id, order_id__in={row.order_id for row in rows}
                ),
            )
        }
        for row in rows:
            self._change(row, found.get((row.order_id, row.is_test)))

    def _change(self, row: BookRow, commission: Commission | None) -> None:
        if commission is None or commission.state == Commission.State.CANCELLED:
            self._note(row, Change.KEPT, "No live commission any more: nothing to change.")
            return
        if commission.state not in (Commission.State.PENDING, Commission.State.HELD):  # issue 38
            self._note(
                row,
                Change.KEPT,
                f"Not moved: the commission is {commission.state} (on a statement), and a reconciliation moves "
                "pending commissions only. Send a cancel or an update event if the change should be billed "
                "as an adjustment.",
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
                    resolution=CommissionHold.cancelled_with_its_order(CommissionHold.Via.BOOK),
                )
                self._note(row, Change.CANCELLED, result.text)
                return
            if row.currency != commission.currency:
                self._note(
                    row,
                    Change.KEPT,
                    f"Not updated: the book's currency {row.currency} is not the order's {commission.currency}.",
                )
                return
            total = order_total(row.amount, row.currency)
            result.set(
                Outcome.TRACKED,
                say("reconciliation.updated", order_id=row.order_id, total=total, currency=row.currency),
            )
            # issue 56: re-priced with its own plan version, as an amount update (attribution.plans.repricing).
            priced = reprice(commission, order_amount=row.amount)
            commission.change_amount(
                row.amount,
                priced.amount,
                at=at,
                request_id=self.request_id,
                alongside=self._outcome_row(row, result),
                priced=priced,
            )
            self._note(row, Change.UPDATED, result.text)
        except Commission.StateChanged:
            self._note(
                row, Change.KEPT, "The commission changed while the book was applied; upload the book again."
            )

    def _outcome_row(self, row: BookRow, result: Result) -> tuple:
        return (Row(OutcomeEvent, row_values(self._receipt(row).event(result))),)
