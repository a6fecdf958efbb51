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

    # The references of an order are checked by the code that writes it (the brand, property, click, code
    # and creator it names were just read) and daily by health.references, not by the database on every
    # order: each check locked the parent row (the brand's for every order), and concurrent orders of one
    # brand shared that lock through MultiXacts (docs/performance.md, "Foreign keys on the hot path").
    # Deleting a parent still cascades or sets NULL: Django's collector does it, not the database.
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="orders", db_index=False, db_constraint=False
    )  # the composite indexes below start with brand
    order_id = models.CharField(max_length=255)
    is_test = models.BooleanField(default=False)
    amount = models.DecimalField(max_digits=18, decimal_places=6)
    currency = models.CharField(max_length=3)
    is_returning_customer = models.BooleanField(default=False)
    return_window_closes_at = models.DateTimeField(null=True, blank=True)
    property = models.ForeignKey(
        Property, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_constraint=False
    )  # indexed: a property's deletion sets its orders' property to NULL
    page_host = models.CharField(max_length=253, blank=True, default="")
    outcome = models.CharField(max_length=32)
    attribution = models.CharField(max_length=8, choices=Attribution.choices, default=Attribution.NONE)
    # click, discount_code and creator: indexed only where set (order_click_idx and the others below).
    click = models.ForeignKey(
        Click,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="orders",
        db_index=False,
        db_constraint=False,
    )
    discount_code = models.ForeignKey(
        DiscountCode,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="orders",
        db_index=False,
        db_constraint=False,
    )
    code_sent = models.CharField(max_length=255, blank=True, default="")
    creator = models.ForeignKey(
        Creator,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="orders",
        db_index=False,
        db_constraint=False,
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
            # A click's, a code's and a creator's orders: the prune of clicks no order names
            # (health.pruning), the sets to NULL when one is deleted, the admin's inlines. Only the orders
            # that name one: a direct order (most of them) adds no entry.
            models.Index(fields=["click"], name="order_click_idx", condition=models.Q(click__isnull=False)),
            models.Index(
                fields=["discount_code"],
                name="order_discount_code_idx",
                condition=models.Q(discount_code__isnull=False),
            ),
            models.Index(
                fields=["creator"], name="order_creator_idx", condition=models.Q(creator__isnull=False)
            ),
        ]

    def __str__(self):
        return f"{self.order_id}{' (test)' if self.is_test else ''}"
