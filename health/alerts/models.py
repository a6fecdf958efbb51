"""Alerting: the rules a brand sets, the incidents they open, the channels and notifications about them,
and each evaluation run (docs/alerts.md)."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone

from brands.models import Brand


class AlertRuleSet(models.Model):
    """A brand's alert rules and their thresholds. A brand without a row has the defaults: every rule on."""

    brand = models.OneToOneField(Brand, on_delete=models.CASCADE, related_name="alert_rules")
    silence_enabled = models.BooleanField("watch for silence", default=True)
    silence_floor_minutes = models.PositiveIntegerField(
        "never before (minutes)",
        default=60,
        validators=[MinValueValidator(5), MaxValueValidator(1440)],
        help_text="No silence alert before this many minutes without a live order confirmation.",
    )
    silence_usual_orders = models.PositiveIntegerField(
        "usual orders missed",
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
        help_text="Alert once this many orders would usually have arrived in the silent stretch "
        "(the same hours of the last 7 days).",
    )
    spike_enabled = models.BooleanField("watch for problem spikes", default=True)
    spike_percent = models.PositiveSmallIntegerField(
        "share above (%)",
        default=20,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Alert when more than this share of the last hour's live order confirmations needs your action.",
    )
    spike_min_events = models.PositiveIntegerField(
        "and at least (events)",
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(100_000)],
        help_text="... and at least this many of them did.",
    )
    new_problem_enabled = models.BooleanField("watch for new problems", default=True)
    new_problem_count = models.PositiveIntegerField(
        "after (events)",
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
        help_text="Alert when a needs-your-action outcome unseen in the previous 7 days occurs this many "
        "times in 24 hours.",
    )
    capture_enabled = models.BooleanField("watch the capture rate", default=True)
    capture_drop_points = models.PositiveSmallIntegerField(
        "below normal by (points)",
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Alert when a reconciliation finds the share of your order book's orders that arrived here "
        "this many percentage points below your normal.",
    )
    capture_normal_percent = models.PositiveSmallIntegerField(
        "normal before history (%)",
        default=95,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Your normal until three earlier reconciliations set it (their median capture rate).",
    )
    # The review alerts (docs/alerts.md, "Review"): their thresholds are the brand's review settings, the
    # ones its holds are judged by, so an alert and a hold never disagree; here they are only on or off.
    review_overdue_enabled = models.BooleanField(
        "watch holds waiting for review",
        default=True,
        help_text="Alert when a held commission has waited longer than your review time.",
    )
    code_leak_enabled = models.BooleanField(
        "watch for leaked codes",
        default=True,
        help_text="Alert when a code's share of orders without a click from its creator jumps above its normal.",
    )
    refund_outlier_enabled = models.BooleanField(
        "watch creators' refund rates",
        default=True,
        help_text="Alert when a creator's orders are cancelled or refunded far more often than yours.",
    )
    email_enabled = models.BooleanField(
        "email the brand's users", default=True, help_text="Every user of the brand with an email address."
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "alert rules of a brand"
        verbose_name_plural = "alert rules"
        constraints = [
            models.CheckConstraint(
                name="alertrules_thresholds_in_range",
                condition=models.Q(silence_floor_minutes__gte=5, silence_floor_minutes__lte=1440)
                & models.Q(silence_usual_orders__gte=1)
                & models.Q(spike_percent__gte=1, spike_percent__lte=100)
                & models.Q(spike_min_events__gte=1)
                & models.Q(new_problem_count__gte=1)
                & models.Q(capture_drop_points__gte=1, capture_drop_points__lte=100)
                & models.Q(capture_normal_percent__gte=1, capture_normal_percent__lte=100),
            ),
        ]

    def __str__(self):
        return f"alert rules of {self.brand}"


# The rules of the service, not of a brand: their incidents name no brand.
SERVICE_RULES = ["service_side", "fx_rates_stale"]


class Incident(models.Model):
    """One firing of a rule: opened when its condition holds, resolved by evaluation when it clears."""

    class Rule(models.TextChoices):
        SILENCE = "silence", "Order confirmations stopped"
        SPIKE = "problem_spike", "Problem spike"
        NEW_PROBLEM = "new_problem", "New problem"
        SERVICE = "service_side", "Service-side fault"
        CAPTURE = "capture_drop", "Capture rate below normal"
        REVIEW_OVERDUE = "review_overdue", "Holds waiting for review"
        CODE_LEAK = "code_leak", "Code leak suspected"
        REFUND_OUTLIER = "refund_outlier", "Refund rate above the brand's"
        FX_STALE = "fx_rates_stale", "Currency rates out of date"  # account managers', as service_side
        # A shop's connection disconnected (uninstalled, revoked): health.alerts.connections.rules (issue 47).
        DISCONNECTED = "disconnected", "Shop disconnected: connect it again"
        # Opened and resolved by the shops' sync (health.alerts.sync.incidents), one a connection (its id the
        # subject; a recovered day's is "<connection id>:<day>").
        SYNC_RECOVERED = "sync_recovered", "Orders only the sync brought"
        WEBHOOK_REMOVED = "webhook_removed", "Webhook subscription removed"
        WEBHOOK_DISABLED = "webhook_disabled", "Webhook disabled by the shop"
        API_VERSION = "api_version", "Platform API version not the pinned one"
        SYNC_FAILED = "sync_failed", "A shop's sync failed"

    # Null for the service-side rules (a fault of this service, stale currency rates): they concern every brand,
    # and account managers.
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, null=True, blank=True, related_name="incidents", db_index=False
    )  # incident_brand_time_idx below starts with brand
    rule = models.CharField(max_length=16, choices=Rule.choices)
    # The outcome code of a new problem (one incident per code), the discount code's id of a code leak, the
    # creator's id of a refund outlier; empty for the other rules.
    subject = models.CharField(max_length=32, blank=True, default="")
    opened_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    # The figures that opened it: what its notifications and pages say (health.alerts.descriptions.describe).
    counts = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            # Two evaluations at once open one incident: the second INSERT fails here.
            models.UniqueConstraint(
                Coalesce("brand", models.Value(0)),
                "rule",
                "subject",
                condition=models.Q(resolved_at__isnull=True),
                name="incident_one_open_per_rule",
            ),
            models.CheckConstraint(
                name="incident_service_side_has_no_brand",
                condition=models.Q(rule__in=SERVICE_RULES, brand__isnull=True)
                | (~models.Q(rule__in=SERVICE_RULES) & models.Q(brand__isnull=False)),
            ),
            models.CheckConstraint(
                name="incident_resolves_after_it_opens",
                condition=models.Q(resolved_at__isnull=True)
                | models.Q(resolved_at__gte=models.F("opened_at")),
            ),
        ]
        indexes = [
            # Alerts page: a brand's incidents, newest first.
            models.Index(fields=["brand", "-opened_at"], name="incident_brand_time_idx"),
            # Evaluation, the overview, the portfolio: the incidents still open (a handful).
            models.Index(
                fields=["rule"], name="incident_open_idx", condition=models.Q(resolved_at__isnull=True)
            ),
        ]

    def __str__(self):
        return f"{self.get_rule_display()}{' ' + self.subject if self.subject else ''} ({self.brand or 'service'})"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None


class Channel(models.Model):
    """A webhook a brand added: its URL, the format its receiver expects and the secret that signs it."""

    class Format(models.TextChoices):
        STANDARD = "standard", "Standard Webhooks (signed JSON)"
        SLACK = "slack", "Slack incoming webhook"

    # Null: an account managers' channel, told about service-side incidents (added in the admin).
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, null=True, blank=True, related_name="alert_channels"
    )
    url = models.URLField(max_length=500)
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.STANDARD)
    # whsec_ + base64 of 24 random bytes (the Standard Webhooks secret format); shown to the brand.
    secret = models.CharField(max_length=64)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "webhook channel"
        constraints = [
            models.CheckConstraint(
                name="channel_format_valid", condition=models.Q(format__in=["standard", "slack"])
            ),
        ]

    def __str__(self):
        return self.url


class Notification(models.Model):
    """That an incident opened or resolved (or a test), to be delivered to each target once."""

    class Kind(models.TextChoices):
        OPENED = "opened", "Incident opened"
        RESOLVED = "resolved", "Incident resolved"
        TEST = "test", "Test notification"

    incident = models.ForeignKey(
        Incident,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="notifications",
        db_index=False,
    )  # notification_once_per_flip below starts with incident
    kind = models.CharField(max_length=10, choices=Kind.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # At most one notification per incident flip, however many evaluations race (docs/alerts.md).
            models.UniqueConstraint(fields=["incident", "kind"], name="notification_once_per_flip"),
            models.CheckConstraint(
                name="notification_test_has_no_incident",
                condition=models.Q(kind="test", incident__isnull=True)
                | (~models.Q(kind="test") & models.Q(incident__isnull=False)),
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}{f' #{self.incident_id}' if self.incident_id else ''}"


class Delivery(models.Model):
    """A notification delivery: a notification on its way to one target, the brand's users by email (no
    channel) or one webhook channel, made by notification attempts (health.alerts.notify.notifications). Not
    a storefront platform's delivery (attribution.models.PlatformDelivery)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed (gave up)"

    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="deliveries")
    channel = models.ForeignKey(
        Channel, on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When the next attempt is due; while one is being sent, the end of its lease (a crashed worker's
    # delivery is taken up again after it). Null once delivered or given up.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "channel"],
                condition=models.Q(channel__isnull=False),
                name="delivery_once_per_channel",
            ),
            models.UniqueConstraint(
                fields=["notification"], condition=models.Q(channel__isnull=True), name="delivery_one_email"
            ),
            models.CheckConstraint(
                name="delivery_pending_is_due",
                condition=models.Q(status="pending", next_attempt_at__isnull=False)
                | (~models.Q(status="pending") & models.Q(next_attempt_at__isnull=True)),
            ),
        ]
        indexes = [
            # The worker's queue: pending deliveries by due time
            # (health.alerts.notify.notifications.deliver_due).
            models.Index(
                fields=["next_attempt_at"], name="delivery_due_idx", condition=models.Q(status="pending")
            ),
        ]


class DeliveryAttempt(models.Model):
    """One notification attempt at a delivery: the delivery log of a channel (or of the brand's email)."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    # Copied from the delivery, so a channel's log is one index range.
    channel = models.ForeignKey(
        Channel, on_delete=models.CASCADE, null=True, blank=True, related_name="attempts", db_index=False
    )  # attempt_channel_time_idx below starts with channel
    number = models.PositiveSmallIntegerField()
    attempted_at = models.DateTimeField()
    ok = models.BooleanField(default=False)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-attempted_at", "-id"]
        indexes = [
            # Alerts page: a channel's delivery log, newest first.
            models.Index(fields=["channel", "-attempted_at"], name="attempt_channel_time_idx"),
        ]


class AlertEvaluation(models.Model):
    """The one row of alert evaluation: a lease, so two workers never evaluate at once, and the last run."""

    running_until = models.DateTimeField(null=True, blank=True)
    last_started_at = models.DateTimeField(null=True, blank=True)
    last_finished_at = models.DateTimeField(null=True, blank=True)
    last_brands = models.PositiveIntegerField(default=0)
    last_duration_ms = models.PositiveIntegerField(default=0)
