"""Run callables in threads released together by a barrier, each on its own database connection."""

import threading

from django.db import connection


def run_together(*calls, timeout: float = 60) -> list:
    """Call each of `calls` in its own thread, all released at once; their return values in order."""
    barrier = threading.Barrier(len(calls))
    results, failures = [None] * len(calls), []

    def run(index, call):
        try:
            connection.ensure_connection()  # connect before the barrier, so the work itself overlaps
            barrier.wait(timeout=30)
            results[index] = call()
        except BaseException as exc:  # noqa: BLE001  (reported to the test below)
            failures.append(exc)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    assert not failures, failures
    return results
