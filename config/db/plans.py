"""Pages plan every statement for its own parameters (docs/performance.md, "A plan for every brand").

The API runs a few statements thousands of times on each connection, so psycopg prepares them after
DB_PREPARE_THRESHOLD runs, and PostgreSQL may then keep one generic plan for all parameters: right for
the API's lookups by unique key, whose plan does not depend on them. A page's reads do depend on them.
With one brand of 30M events and one of 1,000 in the same outcome log, the generic plan of "this brand's
latest events" was the big brand's (walk the log by time and filter by brand): 0.7 s for the small brand
instead of 1 ms. The health pages and the admin therefore plan every statement afresh
(`plan_cache_mode`) on each PostgreSQL connection for the time of the request, streamed answers
included, and put the setting back before the connection, which the API shares, serves anything else.
Creator links, on the same stack, run two lookups by unique key and keep the prepared plans.
"""

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from config.db.router import REPLICA, reads_replica

PLANNED_PATHS = ("/health/", "/admin/")

_FORCE = (
    "SELECT current_setting('plan_cache_mode'), set_config('plan_cache_mode', 'force_custom_plan', false)"
)
_RESTORE = "SELECT set_config('plan_cache_mode', %s, false)"


def _force_custom_plans() -> list[tuple[object, str]]:
    """Custom plans on the PostgreSQL connection this request reads (config.db.router); what to restore."""
    connection = connections[REPLICA if reads_replica() else DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute(_FORCE)
        return [(connection, cursor.fetchone()[0])]


def _restore(restore: list[tuple[object, str]]) -> None:
    for connection, mode in restore:
        try:
            with connection.cursor() as cursor:
                cursor.execute(_RESTORE, [mode])
        except DatabaseError:
            # A connection left unusable (an aborted transaction) is closed at the request's end anyway.
            connection.close_if_unusable_or_obsolete()


def _streamed(content, restore):
    try:
        yield from content
    finally:
        _restore(restore)


class CustomPlansMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(PLANNED_PATHS):
            return self.get_response(request)
        restore = _force_custom_plans()
        try:
            response = self.get_response(request)
        except BaseException:
            _restore(restore)
            raise
        if response.streaming:  # an export reads while it streams, after this call returned
            response.streaming_content = _streamed(response.streaming_content, restore)
        else:
            _restore(restore)
        return response
