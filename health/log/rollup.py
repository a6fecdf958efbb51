"""Folds the outcome log into per-day and per-hour counts, incrementally, so the overview never scans
the log.

Events with id above the watermark are folded in id order, in batches, each batch in one transaction
that locks the watermark row. Ids come from a sequence but commit out of order: an insert that took
id 41 may commit after the one that took id 42. Folding only events recorded more than SAFETY_LAG ago,
and stopping at the first younger one, keeps such a late commit above the watermark until it lands.
Days and hours are keyed by received_at (UTC), so a replayed event still lands on the day it happened.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection, transaction
from django.db.models import Count, F, Min, Q
from django.db.models.functions import TruncDate, TruncHour
from django.utils import timezone

from health.log.models import DailyOutcomeCount, HourlyOutcomeCount, OutcomeEvent, RollupWatermark

WATERMARK_PK = 1
BATCH_SIZE = 5000
# Longer than any transaction that writes an outcome row: the API's single INSERT, and a spool replay
# that writes its row inside the event's own transaction.
SAFETY_LAG = timedelta(seconds=30)
_UPSERT_ROWS_PER_STATEMENT = 500


@dataclass
class RollupResult:
    events: int = 0  # events added to a brand's counts (events without a brand only move the watermark)
    batches: int = 0
    watermark: int = 0
    caught_up: bool = False  # nothing left that is older than the safety lag
    skipped: bool = False  # another roll-up held the lock (only when called with wait=False)


def roll_up(
    *,
    now: datetime | None = None,
    max_batches: int | None = None,
    batch_size: int = BATCH_SIZE,
    wait: bool = True,
) -> RollupResult:
    """Fold new events into the counts; with wait=False, give way at once to a roll-up already running."""
    cutoff = (now or timezone.now()) - SAFETY_LAG
    result = RollupResult()
    while max_batches is None or result.batches < max_batches:
        with transaction.atomic():
            watermark = _locked_watermark(wait=wait)
            if watermark is None:
                result.skipped = True
                return result
            start = watermark.last_event_id
            upper, full = _batch_upper(start, cutoff, batch_size)
            result.watermark = start
            if upper is None:
                result.caught_up = True
                return result
            result.events += _fold(start, upper)
            watermark.last_event_id = upper
            watermark.updated_at = timezone.now()
            watermark.save(update_fields=["last_event_id", "updated_at"])
        result.batches += 1
        result.watermark = upper
        if not full:
            result.caught_up = True
            return result
    return result


def _locked_watermark(*, wait: bool) -> RollupWatermark | None:
    row = RollupWatermark.objects.select_for_update(skip_locked=not wait).filter(pk=WATERMARK_PK).first()
    if row is not None:
        return row
    if RollupWatermark.objects.filter(pk=WATERMARK_PK).exists():
        return None  # locked by a running roll-up (only reachable with skip_locked)
    # First roll-up ever: racing creators meet on the primary key.
    RollupWatermark.objects.get_or_create(pk=WATERMARK_PK)
    return RollupWatermark.objects.select_for_update().get(pk=WATERMARK_PK)


def _batch_upper(start: int, cutoff: datetime, batch_size: int) -> tuple[int | None, bool]:
    """The last id of the next batch, and whether the batch is full (more may follow at once)."""
    after = OutcomeEvent.objects.filter(id__gt=start).order_by("id")
    last_in_batch = after.values_list("id", flat=True)[batch_size - 1 : batch_size].first()
    full = last_in_batch is not None
    if last_in_batch is None:
        last_in_batch = after.order_by("-id").values_list("id", flat=True).first()
        if last_in_batch is None:
            return None, False
    too_young = OutcomeEvent.objects.filter(
        id__gt=start, id__lte=last_in_batch, recorded_at__gte=cutoff
    ).aggregate(first=Min("id"))["first"]
    if too_young is not None:
        # Stop before the first event still inside the safety lag; the rest waits for the next run.
        return (too_young - 1 if too_young - 1 > start else None), False
    return last_in_batch, full


def _fold(start: int, upper: int) -> int:
    """Add the events with ids in (start, upper] to the counts; return how many were counted."""
    events = OutcomeEvent.objects.filter(id__gt=start, id__lte=upper, brand__isnull=False).order_by()
    keys = ("brand_id", "bucket", "endpoint", "outcome", "is_test")
    counts = {"n": Count("id"), "warned": Count("id", filter=Q(has_warnings=True))}
    daily = list(
        events.annotate(bucket=TruncDate("received_at", tzinfo=UTC)).values(*keys).annotate(**counts)
    )
    hourly = events.annotate(bucket=TruncHour("received_at", tzinfo=UTC)).values(*keys).annotate(**counts)
    _upsert(DailyOutcomeCount, "day", [_row(r, connection.ops.adapt_datefield_value) for r in daily])
    _upsert(HourlyOutcomeCount, "hour", [_row(r, connection.ops.adapt_datetimefield_value) for r in hourly])
    return sum(group["n"] for group in daily)


def move_counted_event(
    event: OutcomeEvent, *, outcome: str, brand_id: int | None, is_test: bool, warned: bool
) -> None:
    """Before an event's row changes outcome (a replay resolving a fault): if the counts hold it already,
    move it there too, so it is counted once, under its new outcome (and among the warned events when the
    new row carries warnings). Call inside the transaction that changes the row; the watermark's lock
    keeps a roll-up from folding the row in between."""
    watermark = _locked_watermark(wait=True)
    if event.id > watermark.last_event_id:
        return  # not folded yet: the roll-up will count the row as it is then
    day = event.received_at.astimezone(UTC).date()
    hour = event.received_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    for model, column, bucket, adapt in (
        (DailyOutcomeCount, "day", day, connection.ops.adapt_datefield_value),
        (HourlyOutcomeCount, "hour", hour, connection.ops.adapt_datetimefield_value),
    ):
        if event.brand_id is not None:
            counted = model.objects.filter(
                brand_id=event.brand_id,
                **{column: bucket},
                endpoint=event.endpoint,
                outcome=event.outcome,
                is_test=event.is_test,
                count__gt=0,
            )
            counted.update(count=F("count") - 1)
            if event.has_warnings:
                counted.filter(warned__gt=0).update(warned=F("warned") - 1)
        if brand_id is not None:
            row = (brand_id, adapt(bucket), event.endpoint, outcome, is_test, 1, int(warned))
            _upsert(model, column, [row])


def _row(group: dict, adapt) -> tuple:
    return (
        group["brand_id"],
        adapt(group["bucket"]),
        group["endpoint"],
        group["outcome"],
        group["is_test"],
        group["n"],
        group["warned"],
    )


def _upsert(model, bucket_column: str, rows: list[tuple]) -> None:
    """Add to existing counts (INSERT ... ON CONFLICT DO UPDATE, on SQLite and PostgreSQL alike)."""
    if not rows:
        return
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    columns = ["brand_id", bucket_column, "endpoint", "outcome", "is_test", "count", "warned"]
    key = ", ".join(qn(c) for c in columns[:-2])
    added = ", ".join(f"{qn(c)} = {table}.{qn(c)} + EXCLUDED.{qn(c)}" for c in columns[-2:])
    for i in range(0, len(rows), _UPSERT_ROWS_PER_STATEMENT):
        chunk = rows[i : i + _UPSERT_ROWS_PER_STATEMENT]
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
        sql = (
            f"INSERT INTO {table} ({', '.join(qn(c) for c in columns)}) VALUES {values} "
            f"ON CONFLICT ({key}) DO UPDATE SET {added}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [value for row in chunk for value in row])
