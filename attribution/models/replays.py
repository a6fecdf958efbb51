"""The durable spool's tables (attribution.durability.spool, attribution.replay): the ledger of replays, the events
that can never be processed as they are (dead letters), and each server's last count of what waits."""

from django.db import models
from django.utils import timezone

from brands.models import Brand


class SpoolReplay(models.Model):
    """Ledger of replayed spool files: the unique spool id makes every replay happen once."""

    spool_id = models.CharField(max_length=32, unique=True)
    brand = models.ForeignKey(Brand, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    endpoint = models.CharField(max_length=24)
    received_at = models.DateTimeField()
    replayed_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=32)

    def __str__(self):
        return f"{self.spool_id} {self.outcome}"


class DeadLetter(models.Model):
    """A spooled event that fails while the database answers: kept here, out of the spool, with the reason.

    Replay tells a permanent failure (the event itself: a value no column holds, a bug) from a passing one
    (the database away): only the first comes here. An account manager retries it from the admin once the
    cause is fixed, or drops it. The body is kept as the spool kept it (no address, no key).
    """

    spool_id = models.CharField(max_length=32, unique=True)
    kind = models.CharField(max_length=8)  # attribution.durability.spool.EVENT or RECORD
    brand = models.ForeignKey(Brand, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    endpoint = models.CharField(max_length=24)
    received_at = models.DateTimeField()
    request_id = models.CharField(max_length=36, blank=True, default="")
    answered = models.CharField(max_length=32, blank=True, default="")  # the outcome the caller got
    body = models.TextField(blank=True, default="")
    key_prefix = models.CharField(max_length=16, blank=True, default="")
    key_hash = models.CharField(max_length=128, blank=True, default="")
    record = models.JSONField(null=True, blank=True)  # an outcome log row, for a RECORD entry
    # A storefront platform's delivery as the service read it once verified (attribution.platforms.recording):
    # replayed from this, since the body kept has no signature to verify again.
    event = models.JSONField(null=True, blank=True)
    # An order confirmation's address was at a throwaway domain (attribution.durability.spool.SpooledEntry).
    email_disposable = models.BooleanField(default=False)
    reason = models.TextField()
    attempts = models.PositiveIntegerField(default=1)
    failed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # Admin list, oldest first, and the per-brand count on the health overview.
            models.Index(fields=["brand", "received_at"], name="dead_letter_brand_time_idx"),
        ]

    def __str__(self):
        return f"{self.endpoint} {self.received_at:%Y-%m-%d %H:%M:%S} {self.spool_id}"


class SpoolBacklog(models.Model):
    """What one server's spool held when its last replay run ended: the pages read this, never the disk.

    `by_brand` maps a brand id (as text; "" for events whose brand was not known at arrival) to
    [entries, oldest receipt time in ISO 8601].
    """

    server = models.CharField(max_length=255, unique=True)  # host name and spool directory
    checked_at = models.DateTimeField(default=timezone.now)
    waiting = models.PositiveIntegerField(default=0)
    oldest_received_at = models.DateTimeField(null=True, blank=True)
    by_brand = models.JSONField(default=dict, blank=True)

    def __str__(self):
        return f"{self.server}: {self.waiting} waiting"
