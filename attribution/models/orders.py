"""Orders as received: every order confirmation that reached a 200 outcome, with what attributed it."""

from django.db import models
from django.utils import timezone

from brands.models import Brand, Creator, DiscountCode, Property

from .clicks import Click


class Attribution(models.TextChoices):
    CLICK = "click", "Click"
    CODE = "code", "Discount code"
    SHOPPER = "shopper", "Known shopper"
    NONE = "none", "None"


class Order(models.Model):
    """An order confirmation that reached a 200 outcome, stored as received (docs/decisions.md, "Decision order of an order confirmation")."""

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
    # The signals the decision consulted, in order, as it took them (attribution.orders.trace): [{signal, result, detail}].
    trace = models.JSONField(default=list, blank=True)
    # Which ways in saw the order (docs/decisions.md, "One order, two paths"): an order confirmation (the
    # brand's page or server) and a storefront platform's webhook (attribution.orders.joins).
    # Database defaults too, so the rows of a statement written by hand that names none of them (the bench's
    # pools, its floor) are orders of the order confirmation.
    via_api = models.BooleanField(default=True, db_default=True)
    via_platform = models.BooleanField(default=False, db_default=False)
    # The click id the order confirmation sent, as sent: a handed-off order keeps it for the platform's order.
    click_sent = models.CharField(max_length=255, blank=True, default="", db_default="")
    # The platform's time of the last change applied (its updated_at): an older version arriving later is ignored.
    platform_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # Decides duplicate_order, race-safe: the second of two racing inserts fails here.
            models.UniqueConstraint(
                fields=["brand", "order_id", "is_test"], name="order_unique_per_brand_namespace"
            ),
            models.CheckConstraint(name="order_amount_positive", condition=models.Q(amount__gt=0)),
            models.CheckConstraint(
                name="order_seen_by_a_path", condition=models.Q(via_api=True) | models.Q(via_platform=True)
            ),
        ]
        indexes = [
            # Admin and reports: a brand's orders, newest first.
            models.Index(fields=["brand", "-received_at"], name="order_brand_time_idx"),
        ]

    def __str__(self):
        return f"{self.order_id}{' (test)' if self.is_test else ''}"
