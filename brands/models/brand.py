"""The brand: its attribution window, commission rates and lock period."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

_percent = [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))]


class Brand(models.Model):
    name = models.CharField(max_length=200, unique=True)
    is_active = models.BooleanField(
        default=True, help_text="Inactive brands' events resolve to no brand (unresolved_domain)."
    )
    attribution_window_days = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1)],
        help_text="A click counts for orders received this many days after it (the attribution window).",
    )
    commission_rate_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("10"),
        validators=_percent,
        help_text="Commission as a percentage of the order amount.",
    )
    returning_commission_rate_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_percent,
        help_text="Rate for orders flagged is_returning_customer; empty means the normal rate.",
    )
    storefront_handles_orders = models.BooleanField(
        default=False,
        help_text="The brand's storefront-platform integration records its orders "
        "(events answer shopify_handoff). Also the case, ticked or not, while the brand has an enabled "
        "platform connection.",
    )
    lock_period_days = models.PositiveIntegerField(
        default=30,
        help_text="When an order carries no returnWindowClosesAt, its commission locks this many days after it.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                name="brand_rate_is_a_percentage",
                condition=models.Q(commission_rate_percent__gte=0, commission_rate_percent__lte=100),
            ),
            models.CheckConstraint(
                name="brand_returning_rate_is_a_percentage",
                condition=models.Q(returning_commission_rate_percent__isnull=True)
                | models.Q(
                    returning_commission_rate_percent__gte=0, returning_commission_rate_percent__lte=100
                ),
            ),
            models.CheckConstraint(
                name="brand_attribution_window_positive", condition=models.Q(attribution_window_days__gte=1)
            ),
        ]

    def __str__(self):
        return self.name

    def rate_for(self, *, is_returning_customer: bool) -> Decimal:
        if is_returning_customer and self.returning_commission_rate_percent is not None:
            return self.returning_commission_rate_percent
        return self.commission_rate_percent

    def primary_property(self):
        """The Property marked primary, else the oldest one (the first registered), else None. (Not annotated:
        brands.models.properties imports this module.)"""
        return self.properties.order_by("-is_primary", "created_at", "id").first()
