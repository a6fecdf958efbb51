"""Read replicas (docs/scaling.md, "Read replicas"): with DATABASE_REPLICA_URL set, the health pages' reads
and their exports go to the replica; every write, the API, the admin and sign-in go to the primary.

`ReplicaReadsMiddleware` decides per request: a GET or HEAD under /health/ reads the replica, unless the
same browser changed something moments ago. A change (any POST, PUT, PATCH or DELETE on the pages, sign-in
included) sets a short-lived cookie that pins that browser's reads to the primary for
REPLICA_PIN_SECONDS, so a brand user sees their own change at once despite the replica's lag.
`primary()` pins a block of code to the primary (a page that writes, such as the events page's roll-up).
`ReplicaRouter` only follows that decision. Without DATABASE_REPLICA_URL nothing here is installed.
"""

import time
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings

REPLICA = "replica"
PIN_COOKIE = "primary_until"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
REPLICA_PATHS = ("/health/",)

_reads_replica: ContextVar[bool] = ContextVar("reads_replica", default=False)


def clock() -> float:
    return time.time()


class ReplicaRouter:
    def db_for_read(self, model, **hints):
        return REPLICA if reads_replica() else "default"

    def db_for_write(self, model, **hints):
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database, copied

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"


def reads_replica() -> bool:
    """Whether this request's reads go to the replica."""
    return _reads_replica.get() and REPLICA in settings.DATABASES


@contextmanager
def primary():
    """Read the primary inside this block, whatever the request."""
    token = _reads_replica.set(False)
    try:
        yield
    finally:
        _reads_replica.reset(token)


def _reading_replica(chunks):
    """The chunks of a streamed answer, each made (its queries run) reading the replica."""
    iterator = iter(chunks)
    while True:
        token = _reads_replica.set(True)
        try:
            chunk = next(iterator)
        except StopIteration:
            return
        finally:
            _reads_replica.reset(token)
        yield chunk


def _pinned(request) -> bool:
    try:
        return float(request.COOKIES.get(PIN_COOKIE, "0")) > clock()
    except ValueError:
        return False


class ReplicaReadsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.REPLICA_READS:
            return self.get_response(request)
        replica = (
            request.method in ("GET", "HEAD")
            and request.path.startswith(REPLICA_PATHS)
            and not _pinned(request)
        )
        token = _reads_replica.set(replica)
        try:
            response = self.get_response(request)
        finally:
            _reads_replica.reset(token)
        if replica and response.streaming:  # an export reads while it streams, after this call returned
            response.streaming_content = _reading_replica(response.streaming_content)
        if request.method not in SAFE_METHODS:
            seconds = settings.REPLICA_PIN_SECONDS
            response.set_cookie(
                PIN_COOKIE, f"{clock() + seconds:.3f}", max_age=seconds, httponly=True, samesite="Lax"
            )
        return response
