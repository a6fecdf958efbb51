"""Creator links and clicks, orders as received, commissions with their state machine (D7), amount history,
monthly statements and the adjustments of paid commissions."""

import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from brands.models import Brand, Creator, DiscountCode, Property

from .parsing import normalize_host


def new_click_id() -> str:
    """The one click-id format: "clk_" and 32 lowercase hex digits (see attribution.parsing)."""
    return "clk_" + secrets.token_hex(16)


class Click(models.Model):
    """A shopper's click on a creator's link, stored in the sms_click_id cookie on the brand's site."""

    click_id = models.CharField(max_length=36, unique=True, default=new_click_id, editable=False)
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="clicks", db_index=False
    )  # the composite indexes below start with brand
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="clicks")
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, related_name="clicks")
    clicked_at = models.DateTimeField(default=timezone.now)
    user_agent = models.CharField(max_length=512, blank=True, default="")
    referrer = models.CharField(max_length=2048, blank=True, default="")
    ip_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [
            # Admin and reports: a brand's clicks, newest first.
            models.Index(fields=["brand", "-clicked_at"], name="click_brand_time_idx"),
        ]

    def __str__(self):
        return self.click_id


class Attribution(models.TextChoices):
    CLICK = "click", "Click"
    CODE = "code", "Discount code"
    SHOPPER = "shopper", "Known shopper"
    NONE = "none", "None"


class Order(models.Model):
    """An order confirmation that reached a 200 outcome, stored as received (decision D3)."""

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="orders", db_index=False
    )  # the composite indexes below start with brand
    order_id = models.CharField(max_length=255)
    is_test = models.BooleanField(default=False)
    amount = models.DecimalField(max_digits=18, decimal_places=6)
    currency = models.CharField(max_length=3)
    is_returning_customer = models.BooleanField(default=False)
    return_window_closes_at = models.DateTimeField(null=True, blank=True)
    property = models.ForeignKey(Property, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    page_host = models.CharField(max_length=253, blank=True, default="")
    outcome = models.CharField(max_length=32)
    attribution = models.CharField(max_length=8, choices=Attribution.choices, default=Attribution.NONE)
    click = models.ForeignKey(Click, on_delete=models.SET_NULL, null=True, blank=True, related_name="orders")
    discount_code = models.ForeignKey(
        DiscountCode, on_delete=models.SET_NULL, null=True, blank=True, related_name="orders"
    )
    code_sent = models.CharField(max_length=255, blank=True, default="")
    creator = models.ForeignKey(
        Creator, on_delete=models.SET_NULL, null=True, blank=True, related_name="orders"
    )
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Decides duplicate_order, race-safe: the second of two racing inserts fails here.
            models.UniqueConstraint(
                fields=["brand", "order_id", "is_test"], name="order_unique_per_brand_namespace"
            ),
            models.CheckConstraint(name="order_amount_positive", condition=models.Q(amount__gt=0)),
        ]
        indexes = [
            # Admin and reports: a brand's orders, newest first.
            models.Index(fields=["brand", "-received_at"], name="order_brand_time_idx"),
        ]

    def __str__(self):
        return f"{self.order_id}{' (test)' if self.is_test else ''}"


class Commission(models.Model):
    """What a creator earns for an order. State changes go through attribution.services only."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        LOCKED = "locked", "Locked"
        PAID = "paid", "Paid"
        CANCELLED = "cancelled", "Cancelled"

    # The moves of decision D7, plus paid -> cancelled: a cancel after payment cancels the commission
    # and claws its amount back on the next open statement (attribution.billing); anything else is refused.
    TRANSITIONS = {
        State.PENDING: {State.LOCKED, State.CANCELLED},
        State.LOCKED: {State.PAID, State.CANCELLED},
        State.PAID: {State.CANCELLED},
        State.CANCELLED: set(),
    }

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="commissions", db_index=False
    )  # the composite indexes below start with brand
    order = models.OneToOneField(Order, on_delete=models.CASCADE, related_name="commission")
    creator = models.ForeignKey(Creator, on_delete=models.PROTECT, related_name="commissions")
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

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="commission_state_valid",
                condition=models.Q(state__in=["pending", "locked", "paid", "cancelled"]),
            ),
            # Nothing locked is ever off a statement, nothing pending is on one (billing, D7).
            models.CheckConstraint(
                name="commission_on_statement_once_locked",
                condition=models.Q(state="pending", statement__isnull=True)
                | models.Q(state__in=["locked", "paid"], statement__isnull=False)
                | models.Q(state="cancelled"),
            ),
            # Decision D5 and interface 1.6: test commissions are never billed.
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
                name="commission_order_amount_not_negative", condition=models.Q(order_amount__gte=0)
            ),
        ]
        indexes = [
            # Admin, statements: a brand's commissions by state.
            models.Index(fields=["brand", "state", "created_at"], name="commission_brand_state_idx"),
            # lock_commissions: pending live commissions in id order (a small part of the table).
            models.Index(
                fields=["id"],
                name="commission_lock_queue_idx",
                condition=models.Q(state="pending", is_test=False),
            ),
            # Statement lines and pages: a statement's commissions per creator.
            models.Index(fields=["statement", "creator"], name="commission_statement_idx"),
        ]

    def __str__(self):
        return f"{self.amount} {self.currency} for order {self.order.order_id} ({self.state})"

    def can_move_to(self, state: "Commission.State") -> bool:
        return state in self.TRANSITIONS[Commission.State(self.state)]

    # A statement bills its locked commissions and every paid one, even if cancelled after payment
    # (its clawback is an adjustment); one cancelled before payment keeps its statement but is not billed.
    BILLED = models.Q(state=State.LOCKED) | models.Q(paid_at__isnull=False)

    @property
    def billed_statement(self) -> "Statement | None":
        return self.statement if self.state == self.State.LOCKED or self.paid_at is not None else None


class AmountChange(models.Model):
    """History of every commission amount change, with the request that made it."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+")
    commission = models.ForeignKey(Commission, on_delete=models.CASCADE, related_name="amount_changes")
    old_order_amount = models.DecimalField(max_digits=18, decimal_places=6)
    new_order_amount = models.DecimalField(max_digits=18, decimal_places=6)
    old_amount = models.DecimalField(max_digits=18, decimal_places=6)
    new_amount = models.DecimalField(max_digits=18, decimal_places=6)
    changed_at = models.DateTimeField(default=timezone.now)
    # Joins the outcome log entry (health.OutcomeEvent.request_id) of the update request.
    request_id = models.CharField(max_length=36, blank=True, default="")

    class Meta:
        ordering = ["changed_at", "id"]
        indexes = [
            # The read API and admin: a commission's history in order.
            models.Index(fields=["commission", "changed_at"], name="amountchange_commission_idx"),
        ]


class Statement(models.Model):
    """A brand's billing statement of one month: the live commissions locked in it and the adjustments
    carried to it. Its figures are read from those rows (attribution.billing), never stored twice."""

    class State(models.TextChoices):
        OPEN = "open", "Open"
        PAID = "paid", "Paid"

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="statements", db_index=False
    )  # the unique constraint below starts with brand
    month = models.DateField(help_text="First day of the month (UTC) the statement covers.")
    state = models.CharField(max_length=4, choices=State.choices, default=State.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    paid_at = models.DateTimeField(null=True, blank=True)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-month", "brand_id"]
        permissions = [("pay_statement", "Can mark statements paid")]
        constraints = [
            # One statement per brand and month; also the index of a brand's statements by month.
            models.UniqueConstraint(fields=["brand", "month"], name="statement_one_per_brand_month"),
            models.CheckConstraint(
                name="statement_state_valid", condition=models.Q(state__in=["open", "paid"])
            ),
            models.CheckConstraint(
                name="statement_paid_iff_paid_at",
                condition=models.Q(state="open", paid_at__isnull=True)
                | models.Q(state="paid", paid_at__isnull=False),
            ),
        ]

    def __str__(self):
        return f"{self.brand} {self.month:%Y-%m} ({self.state})"

    @property
    def label(self) -> str:
        return f"{self.month:%B %Y}"


class Adjustment(models.Model):
    """A change to a commission after it was paid: a clawback (negative) or a top-up (positive),
    billed on the statement it is carried to (the open one of the month it happened in)."""

    class Reason(models.TextChoices):
        CANCEL = "cancel", "Cancelled after payment"
        UPDATE = "update", "Amount updated after payment"

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+")
    commission = models.ForeignKey(
        Commission, on_delete=models.CASCADE, related_name="adjustments", db_index=False
    )  # adjustment_commission_idx below starts with commission
    statement = models.ForeignKey(
        Statement, on_delete=models.RESTRICT, related_name="adjustments", db_index=False
    )  # adjustment_statement_idx below starts with statement
    amount = models.DecimalField(max_digits=18, decimal_places=6)
    currency = models.CharField(max_length=3)
    reason = models.CharField(max_length=6, choices=Reason.choices)
    created_at = models.DateTimeField(default=timezone.now)
    # Joins the outcome log entry (health.OutcomeEvent.request_id) of the cancel or update request.
    request_id = models.CharField(max_length=36, blank=True, default="")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(name="adjustment_not_zero", condition=~models.Q(amount=0)),
            models.CheckConstraint(
                name="adjustment_reason_valid", condition=models.Q(reason__in=["cancel", "update"])
            ),
            # A cancel only ever takes money back.
            models.CheckConstraint(
                name="adjustment_cancel_claws_back",
                condition=models.Q(reason="update") | models.Q(amount__lt=0),
            ),
        ]
        indexes = [
            # The read API and admin: a commission's adjustments in order.
            models.Index(fields=["commission", "created_at"], name="adjustment_commission_idx"),
            # Statement lines and pages: the adjustments carried to a statement.
            models.Index(fields=["statement", "created_at"], name="adjustment_statement_idx"),
        ]

    def __str__(self):
        return f"{self.amount.normalize():f} {self.currency} ({self.reason})"


class SpoolReplay(models.Model):
    """Ledger of replayed spool files: the unique spool id makes every replay happen once."""

    spool_id = models.CharField(max_length=32, unique=True)
    brand = models.ForeignKey(Brand, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    endpoint = models.CharField(max_length=24)
    received_at = models.DateTimeField()
    replayed_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=32)

    def __str__(self):
        return f"{self.spool_id} {self.outcome}"


# Lower-case letters and digits: a code survives being typed, read aloud or lower-cased by an app.
LINK_CODE_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def new_link_code() -> str:
    """A fresh link code: 10 characters of LINK_CODE_ALPHABET (36^10 possibilities, not guessable)."""
    return "".join(secrets.choice(LINK_CODE_ALPHABET) for _ in range(10))


class CreatorLink(models.Model):
    """A creator's short link, /l/<code>: each visit records a Click and redirects to the brand's site."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="creator_links")
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, related_name="links")
    code = models.SlugField(
        max_length=64,
        unique=True,
        default=new_link_code,
        help_text="The part after /l/ in the link: letters, digits, - and _; stored lower-case.",
    )
    destination_url = models.URLField(
        max_length=2048,
        help_text="Where the shopper lands: an http(s) page on one of the brand's registered properties.",
    )
    discount_code = models.ForeignKey(
        DiscountCode,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="links",
        help_text="Optional: passed to the brand's site as smscode so its checkout can apply it.",
    )
    is_active = models.BooleanField(default=True, help_text="Inactive links answer 404 and record nothing.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Links are looked up by the lower-cased code, so a stored code must be lower-case.
            models.CheckConstraint(name="creatorlink_code_lowercase", condition=models.Q(code=Lower("code"))),
            models.CheckConstraint(name="creatorlink_code_not_empty", condition=~models.Q(code="")),
        ]
        indexes = [
            # Admin: a brand's links, newest first (the list filtered by brand).
            models.Index(fields=["brand", "-created_at"], name="creatorlink_brand_time_idx"),
            # Admin and setup page: one creator's links within a brand.
            models.Index(fields=["brand", "creator"], name="creatorlink_brand_creator_idx"),
        ]

    def __str__(self):
        return self.code

    def clean(self):
        errors = {}
        self.code = (self.code or "").strip().lower()
        if not self.code:
            errors["code"] = "Enter a code."
        host_error = self._destination_error()
        if host_error:
            errors["destination_url"] = host_error
        if self.brand_id is not None:
            if self.creator_id is not None and self.creator.brand_id != self.brand_id:
                errors["creator"] = "The creator belongs to another brand."
            code = self.discount_code if self.discount_code_id is not None else None
            if code is not None and code.brand_id != self.brand_id:
                errors["discount_code"] = "The discount code belongs to another brand."
            elif code is not None and code.creator_id is not None and code.creator_id != self.creator_id:
                errors["discount_code"] = "The discount code is registered to another creator."
        if errors:
            raise ValidationError(errors)

    def _destination_error(self) -> str | None:
        """Why the destination cannot be a landing page of this brand, or None when it can."""
        if not self.destination_url:
            return None  # the field's own "required" error says it
        try:
            parts = urlsplit(self.destination_url)
        except ValueError:
            return "Enter a valid URL."
        if parts.scheme not in ("http", "https"):
            return "The destination must be an http:// or https:// address."
        if parts.username or parts.password:
            return "The destination must not carry a user name or password."
        host = normalize_host(self.destination_url)
        if not host:
            return "The destination has no usable host name."
        if self.brand_id is None:
            return None  # the brand field's own error says it
        if not Property.objects.filter(brand_id=self.brand_id, host=host).exists():
            return (
                f"{host} is not a registered property of {self.brand}. "
                "Fix: register it as a property of the brand first, or link to one of its registered hosts."
            )
        return None
