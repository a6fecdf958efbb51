"""The durable spool: events the database could not take are kept on local disk and replayed later.

One file per event, written to a temporary name, fsync'd and renamed into place before the caller
gets its answer, so a crash never leaves half an event and concurrent workers never share a file.
`python manage.py replay_spool` processes the files in arrival order exactly once (a ledger row
per file, written in the same transaction as the event's effects) and deletes them.

The Authorization header is never written: a spooled cancel or update keeps the key's prefix
and SHA-512 hash, which is what the key table stores, so the key can be checked again on replay.
"""

import base64
import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings

EVENT = "event"  # the request was not processed: replay runs it through its service
RECORD = "record"  # the request was processed but its outcome log row was not written


@dataclass
class SpooledEntry:
    path: Path
    spool_id: str
    kind: str
    endpoint: str
    received_at: datetime
    request_id: str
    body: bytes
    key_prefix: str
    key_hash: str
    record: dict | None


def spool_dir() -> Path:
    return Path(settings.SPOOL_DIR)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write(document: dict) -> Path:
    directory = spool_dir()
    directory.mkdir(parents=True, exist_ok=True)
    # Names sort in arrival order: replay must judge events in the order they came.
    name = f"{document['received_at'].replace(':', '').replace('-', '')}-{document['spool_id']}.json"
    tmp = directory / f".{name}.tmp"
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
) -> Path:
    """Spool a request that was not processed, so replay_spool can process it."""
    prefix, digest = key_fingerprint(authorization)
    return _write(
        {
            "spool_id": uuid.uuid4().hex,
            "kind": EVENT,
            "brand_id": brand_id,  # when known at arrival: the brand's health view counts it
            "endpoint": endpoint,
            "received_at": received_at.isoformat(),
            "request_id": request_id,
            "body_b64": base64.b64encode(body or b"").decode("ascii"),
            "key_prefix": prefix,
            "key_hash": digest,
        }
    )


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


def pending_count(*, brand_id: int | None = None) -> int:
    """Entries waiting for replay_spool; with brand_id, those known at arrival to be that brand's."""
    files = _spooled_files(spool_dir())
    if brand_id is None:
        return len(files)
    return sum(1 for p in files if json.loads(p.read_text("utf-8")).get("brand_id") == brand_id)


def pending_summary() -> tuple[int, datetime | None]:
    """How many entries wait for replay, and when the oldest arrived: for background checks (the alert
    rules), never per page request. Reads one file: names sort in arrival order."""
    files = _spooled_files(spool_dir())
    if not files:
        return 0, None
    try:
        oldest = datetime.fromisoformat(json.loads(files[0].read_text("utf-8"))["received_at"])
    except (OSError, ValueError, KeyError):  # replayed meanwhile, or unreadable: the count still stands
        oldest = None
    return len(files), oldest


def pending() -> list[SpooledEntry]:
    """Spooled entries in arrival order."""
    entries = []
    for path in _spooled_files(spool_dir()):
        doc = json.loads(path.read_text("utf-8"))
        entries.append(
            SpooledEntry(
                path=path,
                spool_id=doc["spool_id"],
                kind=doc["kind"],
                endpoint=doc["endpoint"],
                received_at=datetime.fromisoformat(doc["received_at"]),
                request_id=doc.get("request_id", ""),
                body=base64.b64decode(doc.get("body_b64", "")),
                key_prefix=doc.get("key_prefix", ""),
                key_hash=doc.get("key_hash", ""),
                record=doc.get("record"),
            )
        )
    return entries


def remove(entry: SpooledEntry) -> None:
    entry.path.unlink(missing_ok=True)
    _fsync_dir(entry.path.parent)
