"""Reconciliations of a brand's own order book (attribution.reconciliation, docs/reconciliation.md): one
run per uploaded CSV, with its summary, and one row per book order with the category it fell in and,
once applied, what was changed for it."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from brands.models import Brand


class Reconciliation(models.Model):
    """One uploaded order book, compared with the orders received. Uploading changes nothing; `apply`
    (attribution.reconciliation.applying) puts right what the book says and stamps `applied_at`."""

    class Format(models.TextChoices):
        GENERIC = "generic", "Generic CSV"
        SHOPIFY = "shopify", "Shopify orders export"
        WOOCOMMERCE = "woocommerce", "WooCommerce orders export"

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="reconciliations", db_index=False
    )  # reconciliation_brand_time_idx starts with brand
    created_at = models.DateTimeField(default=timezone.now)
    # Who uploaded it: a developer key (its prefix) or a signed-in user of the health pages.
    key_prefix = models.CharField(max_length=16, blank=True, default="")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    filename = models.CharField(max_length=255, blank=True, default="")
    format = models.CharField(max_length=12, choices=Format.choices)
    order_id_column = models.CharField(max_length=64)  # the header the order ids were read from
    amount_column = models.CharField(max_length=64)
    # {field: header}: the header each field of the book was read from (only the fields read), and the
    # fields the brand mapped to a header itself (the upload's column_<field> options).
    columns = models.JSONField(default=dict, blank=True)
    mapped_columns = models.JSONField(default=list, blank=True)
    row_count = models.PositiveIntegerField(default=0)  # the data rows read (the header is not one)
    period_start = models.DateTimeField(null=True, blank=True)  # the first and last ordered_at of the book
    period_end = models.DateTimeField(null=True, blank=True)
    # Book orders per category (each in exactly one), and the received orders of the period the book lacks.
    matched = models.PositiveIntegerField(default=0)
    amount_mismatch = models.PositiveIntegerField(default=0)
    cancelled_at_brand = models.PositiveIntegerField(default=0)
    missing = models.PositiveIntegerField(default=0)
    invalid = models.PositiveIntegerField(default=0)
    not_in_book = models.PositiveIntegerField(default=0)
    # The book's completed orders (valid rows the book did not cancel) and those of them the service had
    # received: the capture rate (docs/decisions.md, "Reconciliation: the capture rate and its normal").
    book_orders = models.PositiveIntegerField(default=0)
    received = models.PositiveIntegerField(default=0)
    # Per day of ordered_at (UTC), the book's completed orders and those received: {"2026-11-20": [4, 3], ...}.
    daily_capture = models.JSONField(default=dict, blank=True)
    # [{currency, amount}]: what the missing orders would earn, and the change drifted amounts would make.
    commission_at_risk = models.JSONField(default=list, blank=True)
    commission_difference = models.JSONField(default=list, blank=True)
    # An apply goes a batch at a time (attribution.reconciliation.applying): started, then applied once no
    # row is left; started but not applied, the task runner carries it on.
    apply_started_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # {created, updated, cancelled, kept}: what the apply changed, and the rows it left as they were.
    changes = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [
            # The reconcile page's history, the overview's capture rate and the alert rule: a brand's runs, newest first.
            models.Index(fields=["brand", "-created_at"], name="reconciliation_brand_time_idx"),
            # The task runner: the few runs whose apply started and has rows left.
            models.Index(
                fields=["apply_started_at"],
                name="reconciliation_applying_idx",
                condition=models.Q(apply_started_at__isnull=False, applied_at__isnull=True),
            ),
            # Pruning: the runs older than the retention.
            models.Index(fields=["created_at"], name="reconciliation_time_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                name="reconciliation_format_valid",
                condition=models.Q(format__in=["generic", "shopify", "woocommerce"]),
            ),
            models.CheckConstraint(
                name="reconciliation_applied_once_started",
                condition=models.Q(applied_at__isnull=True) | models.Q(apply_started_at__isnull=False),
            ),
        ]

    def __str__(self):
        return f"Reconciliation {self.pk} ({self.get_format_display()}, {self.row_count} rows)"

    @property
    def capture_rate(self) -> float | None:
        """The share of the book's orders that the service received; None for a book without a valid order."""
        return self.received / self.book_orders if self.book_orders else None


class BookRow(models.Model):
    """One order of the book: where it was in the file, what it said, its category and, once applied, the
    change made for it."""

    class Status(models.TextChoices):
        MATCHED = "matched", "Matched"
        AMOUNT_MISMATCH = "amount_mismatch", "Amount differs"
        CANCELLED_AT_BRAND = "cancelled_at_brand", "Cancelled in the book"
        MISSING = "missing", "Missing here"
        INVALID = "invalid", "Unreadable row"

    class Change(models.TextChoices):
        NONE = "", "No change"
        CREATED = "created", "Order created"
        UPDATED = "updated", "Amount updated"
        CANCELLED = "cancelled", "Commission cancelled"
        KEPT = "kept", "Not changed"

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    reconciliation = models.ForeignKey(
        Reconciliation, on_delete=models.CASCADE, related_name="rows", db_index=False
    )  # book_row_line_unique starts with it
    line = models.PositiveIntegerField()  # the file's line of the order's first row; the header is line 1
    order_id = models.CharField(max_length=255, blank=True, default="")
    is_test = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices)
    detail = models.TextField(blank=True, default="")
    # What the book said (empty on a row that could not be read).
    amount = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True, default="")
    cancelled = models.BooleanField(default=False)  # the book cancelled or refunded the order
    received = models.BooleanField(default=False)  # the service had received the order (the capture rate)
    code = models.CharField(max_length=255, blank=True, default="")
    click_id = models.CharField(max_length=255, blank=True, default="")
    ordered_at = models.DateTimeField(null=True, blank=True)
    # The order's lines as the book listed them (issue 56; Shopify's export: its Lineitem columns), as JSON text
    # (attribution.orders.lines.lines_as_text; text, since the rows are written by COPY); "" for none.
    lines = models.TextField(blank=True, default="", db_default="")  # db_default: a COPY that leaves it out
    # A missing order: the commission it would earn; a drifted one: the change to its commission.
    commission = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    change = models.CharField(max_length=10, choices=Change.choices, blank=True, default="")
    change_detail = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reconciliation", "line"], name="book_row_line_unique"),
            models.CheckConstraint(
                name="book_row_status_valid",
                condition=models.Q(
                    status__in=["matched", "amount_mismatch", "cancelled_at_brand", "missing", "invalid"]
                ),
            ),
            models.CheckConstraint(
                name="book_row_change_valid",
                condition=models.Q(change__in=["", "created", "updated", "cancelled", "kept"]),
            ),
        ]
        indexes = [
            # A run's rows by category (the page, the differences, the apply); also the whole run's rows for
            # the aggregates that find repeated ids and what the book lacks (no index per order id: each costs
            # every upload's 100,000 rows a write, bench/README.md).
            models.Index(fields=["reconciliation", "status", "line"], name="book_row_status_idx"),
            # The order page: the runs that named an order; a run's repeated ids as they are marked.
            models.Index(fields=["brand", "order_id"], name="book_row_brand_order_idx"),
        ]

    def __str__(self):
        return f"line {self.line}: {self.order_id} {self.status}"
