"""One notification attempt: what an email or a webhook send did, as the delivery log keeps it. (An alert's
notification is delivered by attempts; a storefront platform's delivery is another thing, in attribution.)"""

import time
from dataclasses import dataclass


@dataclass
class NotificationAttempt:
    ok: bool
    status_code: int | None = None
    error: str = ""
    retry: bool = False
    duration_ms: int = 0


def elapsed_ms(started: float) -> int:
    """Milliseconds since `started`, a time.monotonic() reading."""
    return int((time.monotonic() - started) * 1000)
