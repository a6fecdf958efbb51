"""The only writer of the outcome log. Request bodies are stored redacted (docs/decisions.md, "Known shoppers" and "Developer keys")."""

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from brands.hosts import hash_email
from config.lib.statements import InsertStatement

from .models import OutcomeEvent

_EMAIL = re.compile(r"[^\s\"'<>@,;:]+@[^\s\"'<>@,;:]+")
_RAW_PREVIEW_CHARS = 2000
SENSITIVE_FIELDS = {"customer_email"}


@dataclass
class EventRecord:
    """Everything the log keeps about one request."""

    endpoint: str
    outcome: str
    http_status: int
    received_at: datetime
    request_id: str = ""
    brand_id: int | None = None
    order_id: str = ""
    is_test: bool = False
    key_prefix: str = ""
    request_body: object = None
    response_body: object = None
    warnings: list = field(default_factory=list)
    # When the row is written; empty means now, and a replayed event must leave it empty so the roll-up's
    # safety lag covers it. Tests set it to control time.
    recorded_at: datetime | None = None

    @classmethod
    def of(
        cls,
        result,
        *,
        endpoint: str,
        received_at: datetime,
        request_id: str,
        request_body=None,
        raw_body: bytes | None = None,
        key_prefix: str = "",
        extra_warnings: tuple = (),
    ) -> "EventRecord":
        """The log row of a service's `attribution.outcomes.Result`: the one way a result becomes a row."""
        return cls(
            endpoint=endpoint,
            outcome=str(result.outcome),
            http_status=result.http_status,
            received_at=received_at,
            request_id=request_id,
            brand_id=result.brand_id,
            order_id=result.order_id,
            is_test=result.is_test,
            key_prefix=key_prefix,
            request_body=redact_body(request_body, raw_body),
            response_body=result.body(),
            warnings=[*result.warnings, *extra_warnings],
        )

    def as_json(self) -> dict:
        """A JSON-safe copy for the spool (attribution.spool.keep_record)."""
        data = asdict(self)
        data["received_at"] = self.received_at.isoformat()
        data["recorded_at"] = self.recorded_at.isoformat() if self.recorded_at else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> "EventRecord":
        recorded = data.get("recorded_at")
        return cls(
            **{
                **data,
                "received_at": datetime.fromisoformat(data["received_at"]),
                "recorded_at": datetime.fromisoformat(recorded) if recorded else None,
            }
        )


def redact_body(data, raw: bytes | None = None):
    """The request body as it may be stored: parsed when it parsed, a redacted preview when not."""
    if isinstance(data, dict):
        clean = {}
        for key, value in data.items():
            if key in SENSITIVE_FIELDS:
                clean[key] = _hashed(value)
            else:
                clean[key] = _jsonable(value)
        return clean
    if data is not None:
        return _jsonable(data)
    if raw:
        # errors="replace" leaves no byte that cannot be stored except NUL, which no text column takes.
        text = raw[:_RAW_PREVIEW_CHARS].decode("utf-8", errors="replace").replace("\x00", "\ufffd")
        return {"_unparsed": _EMAIL.sub("[email redacted]", text)}
    return None


def _hashed(value):
    if isinstance(value, str) and value.strip():
        return f"sha256:{hash_email(value)}"
    return None


def _jsonable(value):
    """JSONField cannot store Decimal; keep the exact text the caller sent instead."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


_insert_event = InsertStatement(OutcomeEvent)


def record(event: EventRecord) -> int:
    """Write one outcome log row (one INSERT) and return its id. Raises on database failure; the caller spools."""
    return _insert_event(
        brand_id=event.brand_id,
        endpoint=event.endpoint,
        outcome=event.outcome,
        http_status=event.http_status,
        order_id=(event.order_id or "")[:255],
        is_test=event.is_test,
        received_at=event.received_at,
        recorded_at=event.recorded_at or timezone.now(),
        request_id=event.request_id,
        key_prefix=event.key_prefix,
        request_body=event.request_body,
        response_body=event.response_body,
        warnings=event.warnings,
        has_warnings=bool(event.warnings),
    )
