"""The health pages and the admin plan each statement for its own parameters (config/db/plans.py): a brand
with 1,000 events beside one with 30M must not get the big brand's generic plan. Nothing is prepared while
they answer; the API keeps preparing, and the connection is handed back as it was."""

import pytest
from django.conf import settings
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory

from config.db.plans import CustomPlansMiddleware

pytestmark = pytest.mark.django_db

REPEATS = 12  # past DB_PREPARE_THRESHOLD: a statement run this often is prepared, unless told not to


@pytest.fixture(autouse=True)
def on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's; SQLite plans every statement anew")


def threshold():
    return connection.connection.prepare_threshold


def prepared_statements() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        return cursor.fetchone()[0]


def run_a_page_query_again_and_again() -> int:
    """How many more statements the server holds prepared after one query ran REPEATS times."""
    before = prepared_statements()
    for _ in range(REPEATS):
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM health_outcomeevent WHERE brand_id = %s", [1])
    return prepared_statements() - before


def seen_by(path: str, *, streaming: bool = False):
    """(the threshold a view under `path` runs with, how many statements it got prepared, the threshold after)."""
    seen = []

    def look():
        seen.append((threshold(), run_a_page_query_again_and_again()))

    def view(request):
        if streaming:

            def chunks():
                look()
                yield b"a,b\n"

            return StreamingHttpResponse(chunks())
        look()
        return HttpResponse("ok")

    connection.ensure_connection()
    response = CustomPlansMiddleware(view)(RequestFactory().get(path))
    if streaming:
        b"".join(response.streaming_content)
    [(during, prepared)] = seen
    return during, prepared, threshold()


def configured() -> int:
    return int(settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"])


def test_a_health_page_prepares_nothing_and_gives_the_connection_back_as_it_was():
    assert seen_by("/health/events/") == (None, 0, configured())


def test_the_admin_does_too():
    assert seen_by("/admin/health/outcomeevent/") == (None, 0, configured())


def test_an_export_prepares_nothing_while_it_streams():
    assert seen_by("/health/export.csv", streaming=True) == (None, 0, configured())


def test_a_creator_link_keeps_preparing_its_lookups():
    during, prepared, after = seen_by("/l/ANA")
    assert during == after == configured()
    assert prepared == 1
