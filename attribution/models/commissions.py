"""Commissions, their states and every move between them (with its history row), and the history of
their amounts."""

from contextlib import nullcontext
from decimal import Decimal

from django.db import models, transaction
from django.utils import timezone

from brands.models import Brand, Creator
from config.lib.sql import Row, write_guarded

from ..money import at_rate
from .orders import Attribution, Order


class Commission(models.Model):
    """What a creator earns for an order. Its state changes only through `move_to`."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        HELD = "held", "Held for review"  # issue 38: a review rule flagged it (attribution.review)
        LOCKED = "locked", "Locked"
        PAID = "paid", "Paid"
        CANCELLED = "cancelled", "Cancelled"

    class InvalidMove(ValueError):
        """A move the transition table does not allow (a bug in the caller, never a brand's mistake)."""

    class StateChanged(Exception):
        """The row was no longer as this instance read it (its state or amounts) when the change came to be
        written; nothing was written."""

    # The moves of docs/decisions.md ("Commission states"), plus paid -> cancelled: a cancel after payment
    # cancels the commission and claws its amount back on the next open statement (attribution.billing);
    # anything else is refused.
    # A held commission is released to pending or rejected to cancelled (attribution.review.decisions); a
    # brand's cancel works on it as on a pending one, and nothing locks it while it is held.
    TRANSITIONS = {
        State.HELD: {State.PENDING, State.CANCELLED},
        State.PENDING: {State.LOCKED, State.CANCELLED},
        State.LOCKED: {State.PAID, State.CANCELLED},
        State.PAID: {State.CANCELLED},
        State.CANCELLED: set(),
    }

    # brand and creator: checked by the code that writes the commission (its order's, just read) and daily
    # by health.references, not by a lock on the parent row per commission (as the order's references).
    # The order stays a constraint: it is written in the same statement, so its check contends with nothing.
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="commissions", db_index=False, db_constraint=False
    )  # the composite indexes below start with brand
    order = models.OneToOneField(Order, on_delete=models.CASCADE, related_name="commission")
    creator = models.ForeignKey(
        Creator, on_delete=models.PROTECT, related_name="commissions", db_constraint=False
    )  # indexed: PROTECT asks whether a creator has commissions
    is_test = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    order_amount = models.DecimalField(max_digits=18, decimal_places=6)
    amount = models.DecimalField(max_digits=18, decimal_places=6)
    currency = models.CharField(max_length=3)
    rate_percent = models.DecimalField(max_digits=5, decimal_places=2)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    # The statement the commission is billed on, set when it locks; kept after payment and cancellation.
    statement = models.ForeignKey(
        "Statement",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="commissions",
        db_index=False,
    )  # commission_statement_idx below starts with statement
    # The amount paid out, frozen at payment: a paid statement's figures never move. Later changes
    # move `amount` and are billed as adjustments.
    paid_amount = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    # The order's, copied when the commission is created with it (attribution.orders.decision.rows_to_store,
    # every way in) and never changed since, as the order's are not: what attributed the order and whether
    # its shop said the shopper had ordered before. The Creators page counts them from this table alone.
    attribution = models.CharField(max_length=8, choices=Attribution.choices)
    is_returning_customer = models.BooleanField()
    # The conversion into the brand's reporting currency, locked when the commission is created
    # (attribution.fx.conversion, docs/currencies.md): the converted amount, the rate exactly as computed (text:
    # its 28 digits survive SQLite, whose numbers are floats), the publication day it was computed from and
    # its source. Without a rate, the amount and rate stay empty and `fx_reason` says why. An amount update
    # converts at the same rate (change_amount). All empty: stored before conversion existed, not converted yet.
    # db_default: rows written by hand-made SQL (the bench's worlds, the floors) need not name them.
    reporting_currency = models.CharField(max_length=3, blank=True, default="", db_default="")
    reporting_amount = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    fx_rate = models.CharField(max_length=48, blank=True, default="", db_default="")
    fx_rate_date = models.DateField(null=True, blank=True)
    fx_source = models.CharField(max_length=16, blank=True, default="", db_default="")
    fx_reason = models.CharField(max_length=200, blank=True, default="", db_default="")
    # issue 56: the version of its brand's commission plan that priced it (brands.PlanVersion, by brand and
    # number), and how: base, each line's rule, limits (attribution.plans.engine). A commission made before
    # plans has no calculation stored: it is its version 1's, computed on read (attribution.plans.shown).
    plan_version = models.PositiveIntegerField(default=1, db_default=1)
    calculation = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="commission_state_valid",
                condition=models.Q(state__in=["pending", "held", "locked", "paid", "cancelled"]),
            ),
            # Nothing locked is ever off a statement, nothing pending is on one (docs/billing.md).
            models.CheckConstraint(
                name="commission_on_statement_once_locked",
                condition=models.Q(state__in=["pending", "held"], statement__isnull=True)
                | models.Q(state__in=["locked", "paid"], statement__isnull=False)
                | models.Q(state="cancelled"),
            ),
            # Test events are never billed (docs/decisions.md, "Test events").
            models.CheckConstraint(
                name="commission_test_never_billed",
                condition=models.Q(is_test=False)
                | models.Q(statement__isnull=True, locked_at__isnull=True, paid_at__isnull=True),
            ),
            models.CheckConstraint(
                name="commission_paid_is_stamped",
                condition=(
                    models.Q(paid_at__isnull=True, paid_amount__isnull=True)
                    | models.Q(paid_at__isnull=False, paid_amount__isnull=False)
                )
                & (~models.Q(state="paid") | models.Q(paid_at__isnull=False)),
            ),
            models.CheckConstraint(name="commission_amount_not_negative", condition=models.Q(amount__gte=0)),
            models.CheckConstraint(
                name="commission_attribution_valid", condition=models.Q(attribution__in=Attribution.values)
            ),
            models.CheckConstraint(
                name="commission_order_amount_not_negative", condition=models.Q(order_amount__gte=0)
            ),
            # A conversion is locked whole (amount, rate, its day and source) or not at all, with its reason.
            models.CheckConstraint(
                name="commission_conversion_whole",
                condition=models.Q(
                    reporting_amount__gte=0,
                    fx_rate_date__isnull=False,
                    fx_reason="",
                )
                & ~models.Q(reporting_currency="")
                & ~models.Q(fx_rate="")
                & ~models.Q(fx_source="")
                | models.Q(reporting_amount__isnull=True, fx_rate="", fx_rate_date__isnull=True, fx_source="")
                & (
                    models.Q(reporting_currency="", fx_reason="")
                    | ~models.Q(reporting_currency="") & ~models.Q(fx_reason="")
                ),
            ),
        ]
        indexes = [
            # A brand's commissions of a period, live and test apart: the Creators page and the portfolio
            # (health.pages.creators.list_queries), the review figures (attribution.review.figures), the admin.
            # Commissions are written in time order, so a period's rows sit together in the table.
            models.Index(fields=["brand", "is_test", "created_at"], name="commission_brand_time_idx"),
            # lock_commissions: pending live commissions in id order (a small part of the table).
            models.Index(
                fields=["id"],
                name="commission_lock_queue_idx",
                condition=models.Q(state="pending", is_test=False),
            ),
            # Statement lines and pages: a statement's commissions per creator. Only commissions on a
            # statement: a pending one (every new one) adds no entry.
            models.Index(
                fields=["statement", "creator"],
                name="commission_statement_idx",
                condition=models.Q(statement__isnull=False),
            ),
        ]

    def __str__(self):
        return f"{self.amount} {self.currency} for order {self.order.order_id} ({self.state})"

    def move_to(
        self,
        state: "Commission.State",
        *,
        at,
        cause: str,
        request_id: str = "",
        statement=None,
        alongside=(),
        resolution: dict | None = None,
    ) -> None:
        """The one way a commission changes state: check the move against TRANSITIONS, then write it with its
        CommissionStateChange row, and the `alongside` rows (config.lib.sql.Row: the outcome row of
        the request that moved it), all or nothing (one statement on PostgreSQL).

        The UPDATE applies only while the row is still as this instance was read (its state and its last
        change time); it takes the row lock as it writes, so a move decided on a stale read raises
        StateChanged instead of being applied twice or stamped before a change it did not see (a caller
        that read the row FOR UPDATE always passes; cancel reads it without a lock and decides again when
        it did not). A lock puts the commission on `statement`, and only a lock does;
        a payment freezes the amount paid.

        A commission leaving `held`, by whatever way, resolves its open holds in the same transaction with
        `resolution` (CommissionHold's decision, via, note and decided_by: a review's decision, or
        CommissionHold.cancelled_with_its_order), stamped with this move's time and request; a move out of held
        without one is refused, so no hold is ever left waiting on a commission that no longer is.
        """
        old, state = Commission.State(self.state), Commission.State(state)
        if state not in self.TRANSITIONS[old]:
            raise self.InvalidMove(f"commission {self.pk}: {old} -> {state} is not allowed")
        leaves_hold = old == self.State.HELD
        if leaves_hold and not resolution:
            raise self.InvalidMove(f"commission {self.pk}: leaving held needs its holds' resolution")
        if (state == self.State.LOCKED) != (statement is not None):
            raise self.InvalidMove(
                f"commission {self.pk}: a commission locks onto a statement, and only then"
            )
        history = Row(
            CommissionStateChange,
            {
                "brand_id": self.brand_id,
                "commission_id": self.pk,
                "from_state": old.value,
                "to_state": state.value,
                "changed_at": at,
                "request_id": request_id,
                "cause": str(cause),
            },
        )
        read = {"state": old.value, "updated_at": self.updated_at}
        self.state, self.updated_at = state, at
        if state in _STAMPS:  # a release (held -> pending) stamps nothing but updated_at
            setattr(self, _STAMPS[state], at)
        if state == self.State.LOCKED:
            self.statement = statement
        if state == self.State.PAID:
            self.paid_amount = self.amount
        with transaction.atomic() if leaves_hold else nullcontext():
            if not write_guarded(self, _MOVED[state], where=read, rows=[history, *alongside]):
                raise self.StateChanged(f"commission {self.pk} is no longer {old}")
            if leaves_hold:
                self.holds.filter(decision="").update(decided_at=at, request_id=request_id, **resolution)

    def change_amount(
        self, order_amount, amount, *, at, request_id: str = "", alongside=(), priced=None, plan_cause=None
    ) -> None:
        """The one way a commission's amounts change: write the new order total and commission with their
        AmountChange history row, and the `alongside` rows, all or nothing, while the row still holds the
        state, amounts and last change time this instance was read with (else StateChanged, nothing
        written). `priced` (attribution.plans.engine.Priced): its new calculation and rate, kept with it;
        `plan_cause`: the plan version whose `apply_to: unpaid` re-priced it, kept in the history row."""
        history = Row(
            AmountChange,
            {
                "brand_id": self.brand_id,
                "commission_id": self.pk,
                "old_order_amount": self.order_amount,
                "new_order_amount": order_amount,
                "old_amount": self.amount,
                "new_amount": amount,
                "changed_at": at,
                "request_id": request_id,
                "plan_version": plan_cause,
            },
        )
        read = {
            "state": self.state,
            "order_amount": self.order_amount,
            "amount": self.amount,
            "updated_at": self.updated_at,
            "fx_rate": self.fx_rate,  # converted meanwhile (attribution.fx.backfill): read it again
        }
        self.order_amount, self.amount, self.updated_at = order_amount, amount, at
        changed = ["order_amount", "amount", "updated_at"]
        if priced is not None:
            self.calculation, self.rate_percent = priced.kept, priced.rate_percent
            self.plan_version = priced.version
            changed += ["calculation", "rate_percent", "plan_version"]
        if self.fx_rate:  # converted at the rate locked when it was created (docs/currencies.md)
            self.reporting_amount = at_rate(amount, Decimal(self.fx_rate), self.reporting_currency)
            changed.append("reporting_amount")
        if not write_guarded(self, changed, where=read, rows=[history, *alongside]):
            raise self.StateChanged(f"commission {self.pk} changed since it was read")

    # A statement bills its locked commissions and every paid one, even if cancelled after payment
    # (its clawback is an adjustment); one cancelled before payment keeps its statement but is not billed.
    BILLED = models.Q(state=State.LOCKED) | models.Q(paid_at__isnull=False)

    @property
    def billed_statement(self):
        """The statement that bills this commission (attribution.models.Statement), or None."""
        return self.statement if self.state == self.State.LOCKED or self.paid_at is not None else None


class CommissionStateChange(models.Model):
    """One move of a commission's state: from, to, when, and why (the request or the run that moved it).
    Written only by `Commission.move_to`, in the transaction of the move."""

    class Cause(models.TextChoices):
        CANCEL = "cancel", "Cancel request"
        LOCK = "lock_commissions", "Return window closed (lock_commissions)"
        PAYMENT = "pay_statement", "Statement paid"
        RECONCILIATION = "reconciliation", "Order book reconciliation"
        REVIEW_RELEASE = "review_release", "Hold released after review"
        REVIEW_REJECT = "review_reject", "Hold rejected after review"

    # Not checked by the database per move, as the commission's own brand (health.references checks it).
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    commission = models.ForeignKey(
        Commission, on_delete=models.CASCADE, related_name="state_changes", db_index=False
    )  # statechange_commission_idx below starts with commission
    from_state = models.CharField(max_length=10, choices=Commission.State.choices)
    to_state = models.CharField(max_length=10, choices=Commission.State.choices)
    changed_at = models.DateTimeField()
    # Joins the outcome log entry (health.OutcomeEvent.request_id) of the cancel request; empty for a run.
    request_id = models.CharField(max_length=36, blank=True, default="")
    cause = models.CharField(max_length=32, choices=Cause.choices)

    class Meta:
        ordering = ["changed_at", "id"]
        constraints = [
            models.CheckConstraint(
                name="statechange_is_a_move", condition=~models.Q(from_state=models.F("to_state"))
            ),
            models.CheckConstraint(
                name="statechange_states_valid",
                condition=models.Q(from_state__in=["pending", "held", "locked", "paid"])
                & models.Q(to_state__in=["pending", "locked", "paid", "cancelled"]),
            ),
        ]
        indexes = [
            # The read API, the order page and the admin: a commission's moves in order.
            models.Index(fields=["commission", "changed_at"], name="statechange_commission_idx"),
            # The overview's "Last cancellation": a brand's newest cancel, whichever way it came (a platform's).
            models.Index(fields=["brand", "to_state", "-changed_at"], name="statechange_brand_to_idx"),
        ]

    def __str__(self):
        return f"{self.from_state} -> {self.to_state} ({self.cause})"


class AmountChange(models.Model):
    """History of every commission amount change, with the request that made it."""

    # Not checked by the database per change, as the commission's own brand (health.references checks it);
    # nothing reads the changes by brand.
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    commission = models.ForeignKey(
        Commission, on_delete=models.CASCADE, related_name="amount_changes", db_index=False
    )  # amountchange_commission_idx below starts with commission
    old_order_amount = models.DecimalField(max_digits=18, decimal_places=6)
    new_order_amount = models.DecimalField(max_digits=18, decimal_places=6)
    old_amount = models.DecimalField(max_digits=18, decimal_places=6)
    new_amount = models.DecimalField(max_digits=18, decimal_places=6)
    changed_at = models.DateTimeField(default=timezone.now)
    # Joins the outcome log entry (health.OutcomeEvent.request_id) of the update request.
    request_id = models.CharField(max_length=36, blank=True, default="")
    # issue 56: the plan version whose `apply_to: unpaid` made this change; null for an update request.
    plan_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["changed_at", "id"]
        indexes = [
            # The read API and admin: a commission's history in order.
            models.Index(fields=["commission", "changed_at"], name="amountchange_commission_idx"),
            # The overview's "Last amount update": a brand's newest change, whichever way it came (a platform's).
            models.Index(fields=["brand", "-changed_at"], name="amountchange_brand_time_idx"),
        ]


# The time stamp each move sets, and every field it writes.
_STAMPS = {
    Commission.State.CANCELLED: "cancelled_at",
    Commission.State.LOCKED: "locked_at",
    Commission.State.PAID: "paid_at",
}
_EXTRA = {Commission.State.LOCKED: ["statement"], Commission.State.PAID: ["paid_amount"]}
_MOVED = {state: ["state", "updated_at", stamp, *_EXTRA.get(state, [])] for state, stamp in _STAMPS.items()}
_MOVED[Commission.State.PENDING] = ["state", "updated_at"]
