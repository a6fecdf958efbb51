"""Clicks, orders as received, commissions with their state machine (decision D7) and amount history."""

import secrets

from django.db import models
from django.utils import timezone

from brands.models import Brand, Creator, DiscountCode, Property


def new_click_id() -> str:
    """The one click-id format: "clk_" and 32 lowercase hex digits (see attribution.parsing)."""
    return "clk_" + secrets.token_hex(16)


class Click(models.Model):
    """A shopper's click on a creator's link, stored in the sms_click_id cookie on the brand's site."""

    click_id = models.CharField(max_length=36, unique=True, default=new_click_id, editable=False)
    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="clicks")
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

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="orders")
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

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="commissions")
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
