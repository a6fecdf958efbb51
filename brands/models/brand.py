"""The brand: its attribution window, commission rates and lock period."""

from decimal import Decimal

import iso4217
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

_percent = [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))]

# A brand reads money in this currency when it names none and no connected shop names one (docs/currencies.md).
DEFAULT_REPORTING_CURRENCY = "USD"


def validate_currency(code: str) -> None:
    """An ISO 4217 currency with minor units, as an order may be paid in (attribution.currencies holds the
    table; brands sit below attribution, so the check reads the same iso4217 package)."""
    try:
        exponent = iso4217.Currency(code).exponent
    except ValueError:
        exponent = None
    if exponent is None:
        raise ValidationError(f"{code!r} is not an ISO 4217 currency code such as USD, EUR or JPY.")


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
    reporting_currency = models.CharField(
        max_length=3,
        blank=True,
        default="",
        validators=[validate_currency],
        help_text="The currency the brand's pages, statements and read API total in; commissions in other "
        "currencies are converted at the ECB rate of each order's date. Empty: the connected shop's currency, "
        "else USD. A change applies to commissions created after it.",
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
            models.CheckConstraint(
                name="brand_reporting_currency_shape",
                condition=models.Q(reporting_currency="") | models.Q(reporting_currency__regex=r"^[A-Z]{3}$"),
            ),
        ]

    def __str__(self):
        return self.name

    def rate_for(self, *, is_returning_customer: bool) -> Decimal:
        if is_returning_customer and self.returning_commission_rate_percent is not None:
            return self.returning_commission_rate_percent
        return self.commission_rate_percent

    def reporting_currency_now(self, connections=None) -> str:
        """The currency the brand reads money in: its own setting, else the currency of a connected shop
        (`shop_currency`, when the connection records one), else USD. `connections`: the brand's enabled,
        approved platform connections when the caller read them already."""
        if self.reporting_currency:
            return self.reporting_currency
        if connections is None:
            connections = self.platform_connections.filter(is_enabled=True, approved_at__isnull=False)
        for connection in connections:
            shop = getattr(connection, "shop_currency", "") or ""
            if shop:
                return shop.upper()
        return DEFAULT_REPORTING_CURRENCY

    def primary_property(self):
        """The Property marked primary, else the oldest one (the first registered), else None. (Not annotated:
        brands.models.properties imports this module.)"""
        return self.properties.order_by("-is_primary", "created_at", "id").first()
