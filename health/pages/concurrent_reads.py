"""Independent reads of one page at the same time, each on its own database connection (docs/health.md,
"Creators"; docs/performance.md, "The Creators page at 100,000 orders").

A page whose cost is a few large grouped queries waits for each in turn; PostgreSQL can answer them at once,
each in its own backend. `ConcurrentReads.run` hands a read to a small pool of threads kept by the process;
Django gives every thread its own connection (`django.db.connections` is per thread), which the pool
thread keeps between requests as a request thread does (CONN_MAX_AGE, and the same check before reuse).
A web process thus holds up to WORKERS connections more than it has request threads.

The reads run apart only where another connection sees what this one would: on PostgreSQL, outside a
transaction. Inside one (a test's, or a view's atomic block) its rows are invisible to other connections,
and SQLite is one file best read by one connection: there each read runs at once, in this thread, in the
order asked. Each pool read runs in a copy of the caller's context, so it reads the database the request
reads (config/db/router.py: the replica or the primary).
"""

import contextvars
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.db import close_old_connections, connection, connections, router

WORKERS = 2
_pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="page-reads")
_threads: set[int] = set()  # the pool's threads that have run a read (and may hold a connection)


def can_run_apart(model) -> bool:
    """Whether reads of `model` may run on other connections: PostgreSQL, outside any transaction."""
    reads = connections[router.db_for_read(model)]
    return reads.vendor == "postgresql" and not reads.in_atomic_block and not connection.in_atomic_block


class ConcurrentReads:
    """`with ConcurrentReads(Model) as reads:` then `reads.run(call)` for each read that can wait: a Future of
    its result, while this thread goes on with its own reads. Leaving the block waits for every read, so none
    outlives the request, whatever happened; `.result()` gives a read's result or raises its error."""

    def __init__(self, model):
        self.apart = can_run_apart(model)
        self._futures: list[Future] = []

    def __enter__(self) -> "ConcurrentReads":
        return self

    def __exit__(self, *exc) -> None:
        wait(self._futures)

    def run(self, call) -> Future:
        if not self.apart:
            done: Future = Future()
            done.set_result(call())
            return done
        future = _pool.submit(contextvars.copy_context().run, _on_own_connection, call)
        self._futures.append(future)
        return future


def _on_own_connection(call):
    """`call` in a pool thread, its connections treated as a request treats them: one past CONN_MAX_AGE or
    broken is replaced before, and closed after when it has grown too old or failed."""
    _threads.add(threading.get_ident())
    close_old_connections()
    try:
        return call()
    finally:
        close_old_connections()


def close_connections() -> None:
    """Close the pool threads' connections, each in its own thread (a connection belongs to the thread that
    opened it): for the test suite, whose test database cannot be dropped while they are open. Run when no
    read is running: every thread that ran one takes one of these tasks, held by the barrier until each has."""
    if not _threads:
        return
    barrier = threading.Barrier(len(_threads))

    def close() -> None:
        barrier.wait(timeout=30)
        connections.close_all()

    for future in [_pool.submit(close) for _ in range(len(_threads))]:
        future.result()
