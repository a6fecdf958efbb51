"""Throttles ("Outcome codes beyond the interface's lists" in docs/decisions.md: 429 `rate_limited` with
Retry-After), keyed to fit real traffic and counted where every worker sees the same count.

- Order confirmation: per client address *and* brand. A brand's own server sends all its confirmations
  from one address (100 a second in a flash sale) and must never be refused; shoppers' browsers send
  one each. Keyed by brand, one address still gets no more than the limit into any brand's log.
- Cancel, update and the read API: per developer key.
- Refused authentication (no key, a bad, unknown, revoked or expired one): per client address, so
  guessing keys or replaying a revoked one is refused with 429 after a few tries.

Counts are fixed windows of the rate's period (a minute for "N/min"), kept in one counter per key:
in the database (one UPSERT), or in the cache when REDIS_URL makes it shared (atomic INCR). Never in a
worker's memory, which would multiply the limit by the number of workers. A request over the limit is
recorded in the outcome log once per window (the first refusal); the rest are answered and not
recorded, so a flood cannot fill a brand's log. Rates come from settings.API_THROTTLE_RATES and are
read per request. If the counter cannot be reached (the database away), the request is let through:
the event itself will be spooled.
"""

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from rest_framework.exceptions import Throttled
from rest_framework.throttling import BaseThrottle

from attribution.models import RateCounter
from attribution.orders.event_brand import brand_id_of_order_event, host_of_order_event
from config.lib.clients import client_address
from health.log.writer import FAULTS, count_unresolved_host

logger = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """ "1200/min" -> (1200, 60)."""
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period.strip()[0]]


def _hit_database(key: str, window_ends: int) -> int:
    qn = connection.ops.quote_name
    table, key_, period_, count_ = (
        qn(n) for n in (RateCounter._meta.db_table, "key", "window_ends", "count")
    )
    # One statement, atomic under concurrency on SQLite and PostgreSQL alike: a new window starts at 1.
    sql = (
        f"INSERT INTO {table} ({key_}, {period_}, {count_}) VALUES (%s, %s, 1) "
        f"ON CONFLICT ({key_}) DO UPDATE SET "
        f"{count_} = CASE WHEN {table}.{period_} = EXCLUDED.{period_} THEN {table}.{count_} + 1 ELSE 1 END, "
        f"{period_} = EXCLUDED.{period_} RETURNING {count_}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, window_ends])
        return cursor.fetchone()[0]


def _hit_cache(key: str, window_ends: int, seconds: int) -> int:
    windowed = f"throttle:{key}:{window_ends}"
    cache.add(windowed, 0, timeout=seconds + 1)
    try:
        return cache.incr(windowed)
    except ValueError:  # expired between add and incr
        cache.add(windowed, 1, timeout=seconds + 1)
        return 1


def clock() -> float:
    return time.time()


def hit(key: str, *, rate: str, now: float | None = None) -> tuple[bool, float, bool]:
    """Count one request against `key`: (allowed, seconds until the window ends, first refusal of the window)."""
    limit, seconds = parse_rate(rate)
    now = clock() if now is None else now
    window_ends = (int(now // seconds) + 1) * seconds
    try:
        if settings.THROTTLE_STORE == "cache":
            count = _hit_cache(key, window_ends, seconds)
        else:
            count = _hit_database(key, window_ends)
    except DatabaseError:
        logger.warning("throttle counter unavailable; request let through", exc_info=True)
        return True, 0.0, False
    return count <= limit, window_ends - now, count == limit + 1


def prune_counters(*, now: float | None = None) -> int:
    """Delete the counters of windows that ended over a day ago (their keys sent nothing since)."""
    deleted, _ = RateCounter.objects.filter(
        window_ends__lt=(clock() if now is None else now) - 86400
    ).delete()
    return deleted


def remember_refusal(request, first: bool) -> None:
    """Whether this 429 is the one of its window that the outcome log records."""
    request._request.record_refusal = first


class _CountingThrottle(BaseThrottle):
    scope = ""

    def key(self, request) -> str:
        raise NotImplementedError

    def allow_request(self, request, view):
        rate = settings.API_THROTTLE_RATES.get(self.scope)
        if not rate:
            return True
        allowed, self._wait, first = hit(f"{self.scope}:{self.key(request)}", rate=rate)
        if not allowed:
            remember_refusal(request, first)
        return allowed

    def wait(self):
        return self._wait


class PerClientAndBrandThrottle(_CountingThrottle):
    """Order confirmation: per client address and the brand the body names (its page_url or domain)."""

    scope = "order_confirmation"

    def key(self, request):
        data = getattr(request, "_full_data", None)
        brand_id = brand_id_of_order_event(data) if isinstance(data, dict) else None
        return f"{client_address(request)}|{brand_id or '-'}"


class PerDeveloperKeyThrottle(_CountingThrottle):
    """Cancel, update and read: per developer key (authentication has refused requests without one)."""

    scope = "developer_key"

    def key(self, request):
        key = request.auth
        return f"key:{key.prefix}" if key is not None else f"ip:{client_address(request)}"


def count_refused_authentication(request) -> None:
    """A request refused authentication: count it against its client address; raise Throttled (429)
    instead of the refusal once the address is over its limit."""
    rate = settings.API_THROTTLE_RATES.get("refused_authentication")
    if not rate:
        return
    allowed, wait, first = hit(f"refused_authentication:{client_address(request)}", rate=rate)
    if not allowed:
        remember_refusal(request, first)
        raise Throttled(wait=wait)


def keep_event_row(request, result, payload, *, endpoint: str, at) -> bool:
    """Whether an event's outcome row is stored. An order confirmation that belongs to no brand
    (unresolved_domain and the like; not a fault, which is spooled) is stored within its address's limit
    (API_THROTTLE_RATES["brandless_events"]); beyond it, it is counted per host and hour instead
    (health.log.writer.count_unresolved_host), so the account manager still sees which unknown hosts
    send and one sender cannot fill the log. Every other event is stored."""
    rate = settings.API_THROTTLE_RATES.get("brandless_events")
    if (
        not rate
        or result.brand_id is not None
        or endpoint != "order_confirmation"
        or result.outcome in FAULTS
    ):
        return True
    allowed, _, _ = hit(f"brandless_events:{client_address(request)}", rate=rate)
    if not allowed:
        count_unresolved_host(host_of_order_event(payload), at=at)
    return allowed
