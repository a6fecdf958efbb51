"""The durable spool: events the database could not take are kept on local disk and replayed later.

One file per event, written to a temporary name, fsync'd and renamed into place before the caller
gets its answer, so a crash never leaves half an event and concurrent workers never share a file.
`python manage.py replay_spool` processes the files in arrival order exactly once (a ledger row
per file, written in the same transaction as the event's effects) and deletes them; an event that
fails while the database answers is moved to the dead letters (attribution.replay).

What a file keeps: the body as the outcome log keeps it, every shopper's address replaced by its hash
(brands.privacy), and never the Authorization header: a spooled cancel or update keeps the key's prefix
and SHA-512 hash, which is what the key table stores, so the key can be checked again on replay. A
storefront platform's delivery, verified on arrival, keeps no signature: it keeps the delivery as the
service read it (attribution.platforms.notice.OrderNotice), which replay runs.

No page reads the directory: each replay run leaves a count of what still waits (SpoolBacklog), and
`backlog()` / `pending_count()` read that and the dead letters from the database.
"""

import base64
import hashlib
import json
import os
import socket
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from brands.emails import is_disposable
from brands.privacy import keep_body

from ..models import DeadLetter, SpoolBacklog

EVENT = "event"  # the request was not processed: replay runs it through its service
RECORD = "record"  # the request was processed but its outcome log row was not written


@dataclass
class SpooledEntry:
    path: Path | None  # None for a dead letter being retried
    spool_id: str
    kind: str
    endpoint: str
    received_at: datetime
    request_id: str
    body: str  # as kept (brands.privacy.keep_body)
    key_prefix: str
    key_hash: str
    record: dict | None
    brand_id: int | None = None
    answered: str = ""  # the outcome the caller was answered: insert_failed or handler_error
    attempts: int = 0  # replay runs that failed on it while the database answered
    document: dict = field(default_factory=dict, repr=False)
    event: dict | None = (
        None  # a platform's delivery as read on arrival (attribution.platforms.notice.OrderNotice)
    )
    # An order confirmation's customer_email was at a throwaway domain: the verdict taken on arrival, since the
    # body keeps only the address's hash (the disposable_email review rule, attribution.review).
    email_disposable: bool = False


def spool_dir() -> Path:
    return Path(settings.SPOOL_DIR)


def server_name() -> str:
    """Which spool a backlog row counts: this host's, at this directory."""
    return f"{socket.gethostname()}:{spool_dir().resolve()}"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(directory: Path, name: str, document: dict) -> Path:
    tmp = directory / f".{name}.{uuid.uuid4().hex}.tmp"
    data = json.dumps(document, separators=(",", ":")).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    final = directory / name
    os.replace(tmp, final)
    _fsync_dir(directory)
    return final


def _write(document: dict) -> Path:
    directory = spool_dir()
    directory.mkdir(parents=True, exist_ok=True)
    # Names sort in arrival order: replay must judge events in the order they came.
    name = f"{document['received_at'].replace(':', '').replace('-', '')}-{document['spool_id']}.json"
    return _write_file(directory, name, document)


def key_fingerprint(authorization: str) -> tuple[str, str]:
    """(prefix, sha512 hex) of a Bearer key, as the key table stores them; ("", "") when absent."""
    scheme, _, key = (authorization or "").strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        return "", ""
    return key.partition(".")[0][:16], hashlib.sha512(key.encode()).hexdigest()


def keep_event(
    *,
    endpoint: str,
    received_at: datetime,
    request_id: str,
    body: bytes,
    authorization: str = "",
    brand_id: int | None = None,
    answered: str = "",
    event: dict | None = None,
) -> Path:
    """Spool a request that was not processed, so replay_spool can process it; a platform's delivery with
    its `event` as read on arrival."""
    prefix, digest = key_fingerprint(authorization)
    extra = {"event": event} if event is not None else {}
    if event is None and _disposable_address(body):
        extra["email_disposable"] = True
    return _write(
        {
            **extra,
            "spool_id": uuid.uuid4().hex,
            "kind": EVENT,
            "brand_id": brand_id,  # when known at arrival: the brand's health view counts it
            "endpoint": endpoint,
            "received_at": received_at.isoformat(),
            "request_id": request_id,
            "answered": answered,
            "body": keep_body(body, preview=False) or "",
            "key_prefix": prefix,
            "key_hash": digest,
        }
    )


def _disposable_address(body: bytes) -> bool:
    """Whether the body's customer_email, as sent, is at a throwaway domain (brands.emails): taken before the
    body is kept with the address hashed. A body that does not read as JSON has no address to judge."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return False
    email = document.get("customer_email") if isinstance(document, dict) else None
    return isinstance(email, str) and "@" in email and is_disposable(email)


def keep_record(*, endpoint: str, received_at: datetime, request_id: str, record: dict) -> Path:
    """Spool an outcome log row whose write failed after the request was processed."""
    return _write(
        {
            "spool_id": uuid.uuid4().hex,
            "kind": RECORD,
            "brand_id": record.get("brand_id"),
            "endpoint": endpoint,
            "received_at": received_at.isoformat(),
            "request_id": request_id,
            "record": record,
        }
    )


def _spooled_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))


def _entry(path: Path | None, doc: dict) -> SpooledEntry:
    if "body_b64" in doc:  # written before bodies were kept as text
        body = keep_body(base64.b64decode(doc["body_b64"]), preview=False) or ""
    else:
        body = doc.get("body", "")
    return SpooledEntry(
        path=path,
        spool_id=doc["spool_id"],
        kind=doc["kind"],
        endpoint=doc["endpoint"],
        received_at=datetime.fromisoformat(doc["received_at"]),
        request_id=doc.get("request_id", ""),
        body=body,
        key_prefix=doc.get("key_prefix", ""),
        key_hash=doc.get("key_hash", ""),
        record=doc.get("record"),
        brand_id=doc.get("brand_id"),
        answered=doc.get("answered", ""),
        attempts=doc.get("attempts", 0),
        document=doc,
        event=doc.get("event"),
        email_disposable=bool(doc.get("email_disposable")),
    )


def pending() -> list[SpooledEntry]:
    """Spooled entries in arrival order (the replay run's read; pages read `backlog()`)."""
    return [_entry(path, json.loads(path.read_text("utf-8"))) for path in _spooled_files(spool_dir())]


def remove(entry: SpooledEntry) -> None:
    if entry.path is not None:
        entry.path.unlink(missing_ok=True)
        _fsync_dir(entry.path.parent)


def count_attempt(entry: SpooledEntry) -> None:
    """Remember in the file that one more run failed on this entry while the database answered."""
    entry.attempts += 1
    if entry.path is not None and entry.path.exists():
        _write_file(entry.path.parent, entry.path.name, {**entry.document, "attempts": entry.attempts})


def dead_letter(entry: SpooledEntry, *, reason: str) -> DeadLetter:
    """Move an entry out of the spool into the dead letters (the database answers: that is why it is here)."""
    letter, _ = DeadLetter.objects.update_or_create(
        spool_id=entry.spool_id,
        defaults={
            "kind": entry.kind,
            "brand_id": entry.brand_id,
            "endpoint": entry.endpoint,
            "received_at": entry.received_at,
            "request_id": entry.request_id,
            "answered": entry.answered,
            "body": entry.body,
            "key_prefix": entry.key_prefix,
            "key_hash": entry.key_hash,
            "record": entry.record,
            "event": entry.event,
            "email_disposable": entry.email_disposable,
            "reason": reason,
            "attempts": max(entry.attempts, 1),
            "failed_at": timezone.now(),
        },
    )
    remove(entry)
    return letter


def entry_of(letter: DeadLetter) -> SpooledEntry:
    """A dead letter as a spool entry, for a retry from the admin."""
    return SpooledEntry(
        path=None,
        spool_id=letter.spool_id,
        kind=letter.kind,
        endpoint=letter.endpoint,
        received_at=letter.received_at,
        request_id=letter.request_id,
        body=letter.body,
        key_prefix=letter.key_prefix,
        key_hash=letter.key_hash,
        record=letter.record,
        brand_id=letter.brand_id,
        answered=letter.answered,
        attempts=letter.attempts,
        event=letter.event,
        email_disposable=letter.email_disposable,
    )


def save_backlog(entries: list[SpooledEntry], *, now: datetime | None = None) -> SpoolBacklog:
    """Leave this server's count of what waits in its spool, for the pages (end of each replay run)."""
    by_brand: dict[str, list] = {}
    for entry in entries:
        count, oldest = by_brand.get(str(entry.brand_id or ""), (0, entry.received_at.isoformat()))
        by_brand[str(entry.brand_id or "")] = [count + 1, min(oldest, entry.received_at.isoformat())]
    backlog, _ = SpoolBacklog.objects.update_or_create(
        server=server_name(),
        defaults={
            "checked_at": now or timezone.now(),
            "waiting": len(entries),
            "oldest_received_at": min((e.received_at for e in entries), default=None),
            "by_brand": by_brand,
        },
    )
    return backlog


@dataclass(frozen=True)
class Backlog:
    """Events not processed yet, as the last replay runs left them."""

    waiting: int  # in the spools, for the next replay run
    oldest_received_at: datetime | None  # of those waiting
    dead_letters: int  # failed for good; wait for an account manager
    checked_at: datetime | None  # the oldest of the servers' last replay runs


def backlog(*, brand_id: int | None = None) -> Backlog:
    """What waits for processing, for all brands or one: read from the database, never from the disk."""
    waiting, oldest, checked = 0, None, None
    for row in SpoolBacklog.objects.all():
        checked = row.checked_at if checked is None else min(checked, row.checked_at)
        if brand_id is None:
            count, first = row.waiting, row.oldest_received_at
        else:
            count, first_text = row.by_brand.get(str(brand_id), (0, None))
            first = datetime.fromisoformat(first_text) if first_text else None
        waiting += count
        if first is not None:
            oldest = first if oldest is None else min(oldest, first)
    letters = DeadLetter.objects.all() if brand_id is None else DeadLetter.objects.filter(brand_id=brand_id)
    return Backlog(
        waiting=waiting, oldest_received_at=oldest, dead_letters=letters.count(), checked_at=checked
    )


def pending_count(*, brand_id: int | None = None) -> int:
    """Events received but not processed yet (waiting in a spool, or dead letters), for all brands or one."""
    found = backlog(brand_id=brand_id)
    return found.waiting + found.dead_letters
