"""Pages plan every statement for its own parameters (docs/performance.md, "A plan for every brand").

The API runs a few statements thousands of times on each connection, so psycopg prepares them after
DB_PREPARE_THRESHOLD runs, and PostgreSQL may then keep one generic plan for all parameters: right for
the API's lookups by unique key, whose plan does not depend on them. A page's reads do depend on them.
With one brand of 30M events and one of 1,000 in the same outcome log, the generic plan of "this brand's
latest events" was the big brand's (walk the log by time and filter by brand): 0.7 s for the small brand
instead of 1 ms. So while the health pages and the admin answer, psycopg prepares nothing on the
connection they read: each statement goes unnamed, and PostgreSQL plans an unnamed statement with its
actual parameters. It costs no round trip; the API's prepared statements stay prepared for it, and the
threshold is put back when the answer, streamed exports included, is done. Creator links, on the same
stack, run two lookups by unique key and keep preparing.
"""

from django.db import DEFAULT_DB_ALIAS, connections

from config.db.router import REPLICA, reads_replica

PLANNED_PATHS = ("/health/", "/admin/")


def _stop_preparing():
    """Prepare nothing on the PostgreSQL connection this request reads (config.db.router); the undo."""
    connection = connections[REPLICA if reads_replica() else DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        return None
    connection.ensure_connection()
    raw = connection.connection
    threshold, raw.prepare_threshold = raw.prepare_threshold, None
    return raw, threshold


def _undo(stopped) -> None:
    if stopped is not None:
        raw, threshold = stopped
        # A connection closed meanwhile is gone with its setting; its successor was opened with the default.
        if not raw.closed:
            raw.prepare_threshold = threshold


def _streamed(content, stopped):
    try:
        yield from content
    finally:
        _undo(stopped)


class CustomPlansMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(PLANNED_PATHS):
            return self.get_response(request)
        stopped = _stop_preparing()
        try:
            response = self.get_response(request)
        except BaseException:
            _undo(stopped)
            raise
        if response.streaming:  # an export reads while it streams, after this call returned
            response.streaming_content = _streamed(response.streaming_content, stopped)
        else:
            _undo(stopped)
        return response
