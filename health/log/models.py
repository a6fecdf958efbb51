"""The outcome log: one row per API request (docs/health.md), its per-day and per-hour counts and the
roll-up's watermark. Below attribution: the API writes it through health.log.writer."""

from django.db import models
from django.utils import timezone

from brands.models import Brand, PlatformConnection

# The outcomes a brand can fix, listed once: the events list's "needs your action" filter, the partial index
# outcome_brand_action_idx and the alert rules read this list. They are the codes the outcome table gives a fix
# that is not a service-side fault (attribution.outcomes.codes, which the log does not import);
# tests/health/log/test_indexes.py keeps the two saying the same.
NEEDS_ACTION_OUTCOMES = [
    "duplicate_order",
    "unregistered_property",
    "click_not_found",
    "invalid_order_amount",
    "invalid_order_id",
    "malformed_click_id",
    "unresolved_domain",
    "unregistered_code",
    "invalid_params",
    "unauthorized",
    "rate_limited",
    "invalid_signature",
    "unknown_shop",
    "connection_disabled",
]


class OutcomeEvent(models.Model):
    """What one request asked and what it got. Written only by health.log.writer."""

    # db_index=False: every index of the table already starts with brand. db_constraint=False: the API
    # resolves the brand before it writes, a brand's deletion deletes its events (Django's collector), and
    # health.references checks daily that every brand named exists; a constraint checked on every event
    # locked the brand's row for each of them (docs/performance.md, "Foreign keys on the hot path").
    brand = models.ForeignKey(
        Brand,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="outcome_events",
        db_index=False,
        db_constraint=False,
    )
    endpoint = models.CharField(max_length=24)  # its names and labels: attribution.outcomes.endpoints
    outcome = models.CharField(max_length=32)
    http_status = models.PositiveSmallIntegerField()
    order_id = models.CharField(max_length=255, blank=True, default="")
    is_test = models.BooleanField(default=False)
    # When the event arrived (a replayed event keeps its original time) ...
    received_at = models.DateTimeField(default=timezone.now)
    # ... and when this row was written; the daily roll-up follows this one.
    recorded_at = models.DateTimeField(default=timezone.now)
    request_id = models.CharField(max_length=36, blank=True, default="")
    key_prefix = models.CharField(max_length=16, blank=True, default="")
    # The body as received, as text (its numbers as they were written), every shopper's address hashed
    # (brands.privacy); a body that is not JSON as a preview. Never a key.
    request_body = models.TextField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    # Whether `warnings` is non-empty, kept as a column so filters and counts need no JSON in SQL.
    has_warnings = models.BooleanField(default=False)
    # A replayed event (attribution.replay) is one row: its real outcome above, and here the fault its
    # caller was answered at the time (insert_failed, handler_error); empty for every other event.
    answered_outcome = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        indexes = [
            # Health events list and export without filters: a brand's events newest first, with the
            # id as tie-break so keyset pages ("older than (received_at, id)") are one index range.
            models.Index(fields=["brand", "-received_at", "-id"], name="outcome_brand_time_id_idx"),
            # Health events list: a brand's events newest first, optionally narrowed by namespace.
            models.Index(fields=["brand", "is_test", "-received_at"], name="outcome_brand_test_time_idx"),
            # Health events list filtered by outcome, and "last tracked" on the overview.
            models.Index(fields=["brand", "outcome", "-received_at"], name="outcome_brand_outcome_idx"),
            # Health events list filtered by endpoint, and "last cancel/update" on the overview.
            models.Index(fields=["brand", "endpoint", "-received_at"], name="outcome_brand_endpoint_idx"),
            # Order id search within a brand: exact, and by prefix (LIKE 'abc%'), which on PostgreSQL
            # needs the pattern operator class (any collation); it serves equality as well.
            models.Index(
                fields=["brand", "order_id"],
                name="outcome_brand_order_prefix_idx",
                opclasses=["int8_ops", "varchar_pattern_ops"],
            ),
            # Health events list filtered to events with warnings: the few such rows, newest first.
            models.Index(
                fields=["brand", "-received_at", "-id"],
                name="outcome_brand_warned_idx",
                condition=models.Q(has_warnings=True),
            ),
            # Health events list filtered to "needs your action": the few such rows, newest first.
            models.Index(
                fields=["brand", "-received_at", "-id"],
                name="outcome_brand_action_idx",
                condition=models.Q(outcome__in=NEEDS_ACTION_OUTCOMES),
            ),
            # No index on order_id alone: the admin's search across brands probes
            # outcome_brand_order_prefix_idx for every brand (health.admin). None on request_id: a replayed
            # event finds its first row by its time (health.log.writer.record_resolution, on the BRIN
            # index below), the order page joins a change to its request among the order's events. None on received_at alone:
            # the admin lists newest ids first (the primary key), and on PostgreSQL a BRIN index on
            # received_at (migration health 0015, which Django's state does not carry) serves the ranges of
            # every brand at once (the alert facts' last hour, a day in the admin).
        ]

    def __str__(self):
        return f"{self.endpoint} {self.outcome} {self.order_id}"


class UnresolvedHostCount(models.Model):
    """Events that belong to no brand beyond their per-address limit, counted per host and hour instead of
    stored one by one (docs/health.md, "Events of no brand"): the account manager still sees which
    unknown hosts send, and one sender cannot fill the log. Pruned with the hourly counts' retention."""

    host = models.CharField(max_length=253)  # as the event named it, normalized; "" when it named none
    hour = models.DateTimeField()  # start of the hour, UTC
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["host", "hour"], name="unresolved_host_hour_unique")]
        indexes = [models.Index(fields=["-hour"], name="unresolved_host_hour_idx")]

    def __str__(self):
        return f"{self.host or '(no host)'} {self.hour:%Y-%m-%d %H}:00 × {self.count}"


class RefusedDeliveryCount(models.Model):
    """A connection's deliveries refused before they were trusted (a signature that does not match, a body over
    the limit) beyond the few an hour its brand's log stores one by one, counted per hour instead (as events of
    no brand are, UnresolvedHostCount): anyone can send such a delivery naming a shop's public domain, and the
    rows must not push the brand's real failures out. The overview adds them to the connection's figures."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    hour = models.DateTimeField()  # start of the hour, UTC
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            # The one counter of a connection's hour; also the index the overview reads a connection's hours by.
            models.UniqueConstraint(
                fields=["brand", "connection", "hour"], name="refused_delivery_hour_unique"
            )
        ]
        indexes = [
            # Retention (health.log.retention): the oldest hours of every connection.
            models.Index(fields=["hour"], name="refused_delivery_prune_idx"),
        ]

    def __str__(self):
        return f"connection {self.connection_id} {self.hour:%Y-%m-%d %H}:00 × {self.count}"


class DailyOutcomeCount(models.Model):
    """Events per brand, day, endpoint, outcome and namespace: what the overview reads."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    endpoint = models.CharField(max_length=24)  # its names and labels: attribution.outcomes.endpoints
    outcome = models.CharField(max_length=32)
    is_test = models.BooleanField(default=False)
    count = models.PositiveIntegerField(default=0)
    warned = models.PositiveIntegerField(default=0)  # how many of `count` carry a warning

    class Meta:
        constraints = [
            # Also the index behind the overview's per-brand, per-period read.
            models.UniqueConstraint(
                fields=["brand", "day", "endpoint", "outcome", "is_test"], name="daily_count_unique"
            ),
        ]
        indexes = [
            # Portfolio: every brand's counts of the last 7 days (health.pages.portfolio.queries).
            models.Index(fields=["day"], name="daily_count_day_idx"),
        ]


class HourlyOutcomeCount(models.Model):
    """The same counts per hour: what the overview's rolling "last 24 hours" and the alert rules read (pruned after 9 days)."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    hour = models.DateTimeField()  # start of the hour, UTC
    endpoint = models.CharField(max_length=24)  # its names and labels: attribution.outcomes.endpoints
    outcome = models.CharField(max_length=32)
    is_test = models.BooleanField(default=False)
    count = models.PositiveIntegerField(default=0)
    warned = models.PositiveIntegerField(default=0)  # how many of `count` carry a warning

    class Meta:
        constraints = [
            # Also the index behind the overview's per-brand read of the last 24 hours.
            models.UniqueConstraint(
                fields=["brand", "hour", "endpoint", "outcome", "is_test"], name="hourly_count_unique"
            ),
        ]
        indexes = [
            # Retention: drop hours older than the rolling window across brands; alert evaluation: the
            # live order confirmations of silent brands in the last 8 days (health.alerts.events.facts).
            models.Index(fields=["hour"], name="hourly_count_hour_idx"),
            # Alert evaluation: needs-your-action outcomes of every brand in the last 8 days, without
            # reading the far more numerous tracked and direct-order rows (health.alerts.events.facts).
            models.Index(
                fields=["outcome", "hour"], name="hourly_count_outcome_idx", condition=models.Q(is_test=False)
            ),
        ]


class RollupWatermark(models.Model):
    """The last outcome event folded into the daily and hourly counts (a single row, health.log.rollup)."""

    last_event_id = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)
