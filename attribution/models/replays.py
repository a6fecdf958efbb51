"""The ledger of the durable spool's replays (attribution.spool, attribution.replay)."""

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


# Lower-case letters and digits: a code survives being typed, read aloud or lower-cased by an app.
