"""Sync now's one queued or running sync per connection (attribution.models.QueuedSync): a press queues a sync only
when none of the shop is waiting or running; its task lets go of it once the sync has finished."""

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from attribution.models import QueuedSync
from brands.models import PlatformConnection

# A queued sync whose task was lost (the runner killed, the queue emptied) no longer holds the shop after this.
STALE_SECONDS = 60 * 60


def hold(
    connection: PlatformConnection, *, start: datetime, end: datetime, now: datetime
) -> QueuedSync | None:
    """The shop's queued sync, made for this press; None when one is queued or running already."""
    fields = {"brand_id": connection.brand_id, "window_start": start, "window_end": end, "queued_at": now}
    with transaction.atomic():
        QueuedSync.objects.filter(
            connection=connection, queued_at__lt=now - timedelta(seconds=STALE_SECONDS)
        ).delete()
        try:
            with transaction.atomic():
                return QueuedSync.objects.create(connection=connection, **fields)
        except IntegrityError:  # another press holds it, this moment or before
            return None


def release(connection_id: int) -> None:
    """The shop's Sync now has finished (done or failed): the next press may queue one."""
    QueuedSync.objects.filter(connection_id=connection_id).delete()
