"""Billing: a brand's monthly statements and the adjustments carried to them after payment."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from brands.models import Brand

from .commissions import Commission


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
    billed on the statement it is carried to (the open one of the month it happened in); or a retroactive
    tier's difference for a creator's month, on that month's statement when it is paid."""

    class Reason(models.TextChoices):
        CANCEL = "cancel", "Cancelled after payment"
        UPDATE = "update", "Amount updated after payment"
        # issue 56: a retroactive tier's difference on the month's earlier orders (attribution.plans.tiers).
        TIER = "tier", "Retroactive tier reached"

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
                name="adjustment_reason_valid", condition=models.Q(reason__in=["cancel", "update", "tier"])
            ),
            # A cancel only ever takes money back.
            models.CheckConstraint(
                name="adjustment_cancel_claws_back",
                condition=models.Q(reason__in=["update", "tier"]) | models.Q(amount__lt=0),
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
