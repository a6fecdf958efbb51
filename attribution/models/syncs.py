"""The nightly sync of a shop's orders through its platform's API (attribution.platforms.sync): each run with
its window, resume point and figures; the orders the runs read, each with the path it had come by (or that
the sync brought it: no webhook had delivered it); and each connection's daily capture (of the shop's orders of a day, how many arrived live, by which path, and how
many only by the sync)."""

from django.db import models
from django.utils import timezone

from brands.models import Brand, PlatformConnection


class SyncRun(models.Model):
    """One sync of one connection: the orders changed in [window_start, window_end), read page by page. A run
    is `running` until it is `done` or `failed`; while running, the runner holding it renews `lease_until`
    after each page, and a run whose lease ran out (its runner died) is taken over by the next runner, from
    its `cursor` (attribution.platforms.sync.runs)."""

    class Trigger(models.TextChoices):
        NIGHTLY = "nightly", "Nightly schedule"
        MANUAL = "manual", "Sync now (setup page)"
        COMMAND = "command", "sync_orders command"

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Stopped by an error"

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.CASCADE, related_name="sync_runs", db_index=False
    )  # sync_run_connection_time_idx starts with connection
    trigger = models.CharField(max_length=8, choices=Trigger.choices)
    # Whether the window followed on from the last run's (the nightly's and a plain sync_orders'); a window
    # asked for (Sync now, --since) does not move the next nightly's start.
    follows_on = models.BooleanField(default=True)
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.RUNNING)
    # Where the next page starts: Shopify's endCursor, WooCommerce's page number; "" before the first page.
    cursor = models.CharField(max_length=512, blank=True, default="")
    pages = models.PositiveIntegerField(default=0)
    orders_read = models.PositiveIntegerField(default=0)
    recovered = models.PositiveIntegerField(default=0)  # recorded: no live path had brought them
    followed = models.PositiveIntegerField(default=0)  # a cancel, refund or amount the webhooks missed
    unchanged = models.PositiveIntegerField(default=0)  # held already as the platform has them
    skipped = models.PositiveIntegerField(default=0)  # not paid yet, unreadable, or otherwise not recorded
    # [{"at", "kind", "text"}]: what went wrong (a refused credential, an unavailable platform, an order refused).
    errors = models.JSONField(default=list, blank=True)
    # What the webhooks' health check found and did: {"missing": [...], "recreated": [...], "reenabled": [...]}.
    webhooks = models.JSONField(default=dict, blank=True)
    # The API version the platform answered with, when it is not the pinned one (Shopify's X-Shopify-API-Version).
    served_version = models.CharField(max_length=16, blank=True, default="")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    runner = models.CharField(max_length=128, blank=True, default="")  # host:pid of the runner holding it
    # Whether its incidents were opened (by health, on the sync's sync_run_finished): once, by whichever runner
    # finishes it.
    reported = models.BooleanField(default=False)

    class Meta:
        constraints = [
            # Never two runs of one shop at once, whatever the runners and machines: the second INSERT fails.
            models.UniqueConstraint(
                fields=["connection"],
                condition=models.Q(status="running"),
                name="sync_run_one_running_per_connection",
            ),
            models.CheckConstraint(
                name="sync_run_window_forward", condition=models.Q(window_start__lt=models.F("window_end"))
            ),
            models.CheckConstraint(
                name="sync_run_status_known", condition=models.Q(status__in=["running", "done", "failed"])
            ),
            models.CheckConstraint(
                name="sync_run_finished_when_not_running",
                condition=models.Q(status="running", finished_at__isnull=True)
                | (~models.Q(status="running") & models.Q(finished_at__isnull=False)),
            ),
        ]
        indexes = [
            # The sync history page, the next window (the last run that followed on) and the running run.
            models.Index(fields=["connection", "-started_at"], name="sync_run_connection_time_idx"),
            # The brand's sync history across its connections.
            models.Index(fields=["brand", "-started_at"], name="sync_run_brand_time_idx"),
        ]

    def __str__(self):
        return f"sync {self.pk} of connection {self.connection_id} ({self.status})"


class QueuedSync(models.Model):
    """A Sync now waiting for the task runner or running: one per connection, so a repeated press queues nothing
    more (docs/threat-model.md, "Round six", finding 5). Removed when its sync has finished; one older than
    attribution.platforms.sync.queued.STALE_SECONDS (its task lost) no longer counts."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    queued_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # One queued or running Sync now per shop, whatever the presses and web workers: the second INSERT fails.
            models.UniqueConstraint(fields=["connection"], name="queued_sync_one_per_connection"),
        ]

    def __str__(self):
        return f"Sync now of connection {self.connection_id} queued {self.queued_at:%Y-%m-%d %H:%M}"


class SyncedOrder(models.Model):
    """An order a sync read, once (the first run that read it): by which path it had come when the sync first
    saw it, or that the sync brought it (`path` sync: the list of what was missing). The daily capture counts
    these rows, so an overlap or a second sync never counts an order twice."""

    class Path(models.TextChoices):
        WEBHOOK = "webhook", "The platform's webhook"
        CONFIRMATION = "confirmation", "The order confirmation only"
        SYNC = "sync", "Only the sync"

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.CASCADE, related_name="+", db_index=False
    )  # synced_order_once and synced_order_day_idx start with brand and connection
    run = models.ForeignKey(SyncRun, on_delete=models.CASCADE, related_name="synced_orders")
    order_id = models.CharField(max_length=255)
    is_test = models.BooleanField(default=False)
    path = models.CharField(max_length=12, choices=Path.choices)
    day = models.DateField()  # the day it was placed, in the shop's time zone
    placed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=32, blank=True, default="")  # what the sync's record decided
    seen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["brand", "connection", "order_id", "is_test"], name="synced_order_once"
            ),
            models.CheckConstraint(
                name="synced_order_path_known",
                condition=models.Q(path__in=["webhook", "confirmation", "sync"]),
            ),
        ]
        indexes = [
            # The daily capture: a connection's orders of some days, by path.
            models.Index(fields=["connection", "day", "path"], name="synced_order_day_idx"),
        ]

    def __str__(self):
        return f"{self.order_id} ({self.path}) seen by sync {self.run_id}"


class DailyCapture(models.Model):
    """Of a connection's orders of one day (the shop's paid, non-test orders the service holds once the sync
    has read them), how many arrived live, by which path, and how many only by the sync. Rewritten whole by
    each sync for the days of its window and of its orders, from the synced orders (attribution.platforms.sync.capture)."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField()
    orders = models.PositiveIntegerField(default=0)
    by_webhook = models.PositiveIntegerField(default=0)  # the platform's webhook (with or without the page's)
    by_confirmation = models.PositiveIntegerField(default=0)  # the order confirmation only
    by_sync = models.PositiveIntegerField(default=0)  # only the sync
    measured_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["brand", "connection", "day"], name="daily_capture_unique"),
            models.CheckConstraint(
                name="daily_capture_parts_add_up",
                condition=models.Q(
                    orders=models.F("by_webhook") + models.F("by_confirmation") + models.F("by_sync")
                ),
            ),
        ]
        indexes = [
            # The overview's capture rate per day: a brand's last days.
            models.Index(fields=["brand", "-day"], name="daily_capture_brand_day_idx"),
        ]

    def __str__(self):
        return f"capture of connection {self.connection_id} on {self.day}"
