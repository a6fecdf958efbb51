"""Review holds (docs/review.md): each brand's review settings, the hold a rule puts on a commission with its
evidence and its resolution, and the daily figures' outliers the rules read on the order path."""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone

from brands.models import Brand, Creator, DiscountCode

from .commissions import Commission


class Rule(models.TextChoices):
    """The review rules, one module each in attribution/review/ (docs/review.md)."""

    SELF_REFERRAL = "self_referral", "Self-referral"
    DISPOSABLE_EMAIL = "disposable_email", "Throwaway email address"
    CODE_LEAK = "code_leak", "Code leaked to coupon sites"
    REFUND_RATE = "refund_rate", "Refund rate far above the brand's"
    CLICK_REUSE = "click_reuse", "One click, too many orders"


# Coupon and deal sites whose visitors use codes they found, not a creator's recommendation. A referring
# site under one of these (or a subdomain) makes a code-only order a suspected leak (rules/code_leak).
COUPON_DOMAINS = (
    "retailmenot.com",
    "honey.com",
    "joinhoney.com",
    "coupons.com",
    "groupon.com",
    "slickdeals.net",
    "dealspotr.com",
    "couponfollow.com",
    "knoji.com",
    "wethrift.com",
    "couponbirds.com",
    "promocodes.com",
    "rakuten.com",
    "capitaloneshopping.com",
    "couponcabin.com",
    "dealnews.com",
    "offers.com",
    "savings.com",
    "coupert.com",
    "karmanow.com",
)


def default_coupon_domains() -> str:
    return "\n".join(COUPON_DOMAINS)


class ReviewSettings(models.Model):
    """One brand's review rules: which are on, their thresholds, and how long a hold may wait. A brand
    without a row gets the defaults (attribution.review.settings_copy), whose reasons are in docs/review.md."""

    brand = models.OneToOneField(Brand, on_delete=models.CASCADE, related_name="review_settings")
    self_referral = models.BooleanField(default=True, help_text="Hold an order whose shopper is the creator.")
    disposable_email = models.BooleanField(
        default=True, help_text="Hold an order whose shopper's email is at a throwaway-address domain."
    )
    code_leak = models.BooleanField(
        default=True,
        help_text="Hold a code-only order from a coupon site, and a code's code-only orders while its "
        "share of them is far above its normal.",
    )
    refund_rate = models.BooleanField(
        default=True, help_text="Hold the new orders of a creator whose orders are refunded far more often."
    )
    click_reuse = models.BooleanField(
        default=True, help_text="Hold the extra orders of one click beyond the hourly limit."
    )
    refund_rate_multiple = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        default=Decimal("2.00"),
        help_text="A creator is an outlier above this multiple of the brand's cancelled share.",
    )
    refund_rate_min_orders = models.PositiveIntegerField(
        default=20, help_text="Fewer attributed orders in the period than this say nothing about a rate."
    )
    refund_rate_days = models.PositiveIntegerField(
        default=90, help_text="The period the rates are read over."
    )
    code_leak_recent_orders = models.PositiveIntegerField(
        default=50, help_text="A code's recent share is read over its last this many orders."
    )
    code_leak_jump_points = models.PositiveIntegerField(
        default=30,
        help_text="Percentage points above its normal share at which a code's code-only orders are held.",
    )
    click_reuse_per_hour = models.PositiveIntegerField(
        default=5, help_text="Orders from one click within an hour beyond this number are held."
    )
    review_days = models.PositiveIntegerField(
        default=7, help_text="A hold waiting longer than this opens an alert incident."
    )
    coupon_domains = models.TextField(
        default=default_coupon_domains,
        blank=True,
        help_text="Coupon and deal sites, one registrable domain a line; their subdomains count too.",
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "review settings"
        constraints = [
            models.CheckConstraint(
                name="review_refund_multiple_above_one", condition=models.Q(refund_rate_multiple__gt=1)
            ),
            models.CheckConstraint(name="review_days_positive", condition=models.Q(review_days__gt=0)),
            models.CheckConstraint(
                name="review_click_reuse_positive", condition=models.Q(click_reuse_per_hour__gt=0)
            ),
        ]

    def __str__(self):
        return f"Review settings of {self.brand}"


class CommissionHold(models.Model):
    """A rule's hold on a commission: the rule, its evidence, and how someone decided on it. Written with the
    held commission (attribution.review.holds); resolved only by attribution.review.decisions."""

    class Decision(models.TextChoices):
        OPEN = "", "Waiting"
        RELEASED = "released", "Released"
        REJECTED = "rejected", "Rejected"
        CANCELLED = "cancelled", "Cancelled with its order"  # its order was cancelled before anyone decided

    class Via(models.TextChoices):
        API = "api", "Review API"
        ADMIN = "admin", "Admin"
        PAGE = "page", "Review page"
        CHANGE = "change", "Cancel request"
        PLATFORM = "platform", "The shop's platform"
        BOOK = "book", "Order book reconciliation"

    # Not checked by the database per hold, as the commission's own brand (health.references checks it): a held
    # order's statement writes its holds, and a check would lock the brand's row under every concurrent held
    # order (MultiXacts, docs/performance.md). The commission is written in the same statement.
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    commission = models.ForeignKey(Commission, on_delete=models.CASCADE, related_name="holds", db_index=False)
    rule = models.CharField(max_length=20, choices=Rule.choices)
    detail = models.TextField()
    held_at = models.DateTimeField()
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True, default="")
    note = models.TextField(blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    via = models.CharField(max_length=8, choices=Via.choices, blank=True, default="")
    # The review request's id in the outcome log (health.OutcomeEvent.request_id), when it came by the API.
    request_id = models.CharField(max_length=36, blank=True, default="")

    class Meta:
        ordering = ["held_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["commission", "rule"], name="hold_one_per_rule"),
            models.CheckConstraint(
                name="hold_decision_valid",
                condition=models.Q(decision__in=["", "released", "rejected", "cancelled"]),
            ),
            models.CheckConstraint(
                name="hold_decided_is_stamped",
                condition=models.Q(decision="", decided_at__isnull=True)
                | (~models.Q(decision="") & models.Q(decided_at__isnull=False)),
            ),
        ]
        indexes = [
            # The Review page and the waiting-hold alert: a brand's open holds, oldest first.
            models.Index(fields=["brand", "held_at"], name="hold_open_idx", condition=models.Q(decision="")),
            # The read API, the order page and the decisions: a commission's holds.
            models.Index(fields=["commission"], name="hold_commission_idx"),
        ]

    def __str__(self):
        return f"{self.rule} hold on commission {self.commission_id}"

    @classmethod
    def cancelled_with_its_order(cls, via: str) -> dict:
        """How the open holds of a held commission cancelled by `via` (CHANGE, PLATFORM, BOOK) are resolved
        (Commission.move_to)."""
        return {"decision": cls.Decision.CANCELLED, "via": via, "note": _CANCELLED_BY[via]}

    @property
    def resolution(self) -> dict | None:
        """As the read API shows it: null while waiting, else {decision, note, at}."""
        if not self.decision:
            return None
        return {"decision": self.decision, "note": self.note, "at": self.decided_at}


_CANCELLED_BY = {
    way: f"Its order was cancelled by {words} before anyone decided."
    for way, words in (
        (CommissionHold.Via.CHANGE, "a cancel request"),
        (CommissionHold.Via.PLATFORM, "the shop's platform"),
        (CommissionHold.Via.BOOK, "an order book's reconciliation"),
    )
}


class ReviewFlag(models.Model):
    """An outlier the daily figures found (attribution.review.figures.refresh): a creator whose orders are
    refunded far above the brand's rate, or a code whose share of code-only orders jumped. The order path
    reads a brand's flags from a per-process copy; the refresh replaces them."""

    class Kind(models.TextChoices):
        REFUND_RATE = "refund_rate", "Refund-rate outlier (creator)"
        CODE_SHARE = "code_share", "Code-only share jump (code)"

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    discount_code = models.ForeignKey(
        DiscountCode, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    detail = models.TextField()
    figures = models.JSONField(default=dict)  # the counts behind the flag, for the pages
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="reviewflag_names_its_subject",
                condition=models.Q(kind="refund_rate", creator__isnull=False, discount_code__isnull=True)
                | models.Q(kind="code_share", discount_code__isnull=False),
            ),
        ]
        indexes = [
            # The order path's per-process copy and the alerts: a brand's flags.
            models.Index(fields=["brand", "kind"], name="reviewflag_brand_idx"),
        ]

    def __str__(self):
        return f"{self.kind}: {self.detail}"
