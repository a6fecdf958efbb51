"""Creator links and clicks, orders as received, commissions with their state machine (D7), amount history."""

import secrets
from urllib.parse import urlsplit

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

    # The moves of decision D7; anything else is refused.
    TRANSITIONS = {
        State.PENDING: {State.LOCKED, State.CANCELLED},
        State.LOCKED: {State.PAID, State.CANCELLED},
        State.PAID: set(),
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

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="commission_state_valid",
                condition=models.Q(state__in=["pending", "locked", "paid", "cancelled"]),
            ),
            models.CheckConstraint(name="commission_amount_not_negative", condition=models.Q(amount__gte=0)),
            models.CheckConstraint(
                name="commission_order_amount_not_negative", condition=models.Q(order_amount__gte=0)
            ),
        ]
        indexes = [
            # Admin, statements: a brand's commissions by state.
            models.Index(fields=["brand", "state", "created_at"], name="commission_brand_state_idx"),
        ]

    def __str__(self):
        return f"{self.amount} {self.currency} for {self.order_id} ({self.state})"

    def can_move_to(self, state: "Commission.State") -> bool:
        return state in self.TRANSITIONS[Commission.State(self.state)]


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
