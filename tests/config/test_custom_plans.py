"""The health pages and the admin plan each statement for its own parameters (config/db/plans.py): a brand
with 1,000 events beside one with 30M must not get the big brand's generic plan. The API keeps its
prepared plans, and a connection is handed back as it was."""

import pytest
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory

from config.db.plans import CustomPlansMiddleware

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("plan_cache_mode is a PostgreSQL setting; SQLite plans every statement anew")


def plan_mode() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('plan_cache_mode')")
        return cursor.fetchone()[0]


def seen_by(path: str, *, streaming: bool = False) -> tuple[list[str], str]:
    """The plan mode a view under `path` reads, and the one the connection has afterwards."""
    seen = []

    def view(request):
        if streaming:

            def chunks():
                seen.append(plan_mode())
                yield b"a,b\n"

            return StreamingHttpResponse(chunks())
        seen.append(plan_mode())
        return HttpResponse("ok")

    response = CustomPlansMiddleware(view)(RequestFactory().get(path))
    if streaming:
        b"".join(response.streaming_content)
    return seen, plan_mode()


def test_a_health_page_plans_every_statement_for_its_parameters_and_gives_the_connection_back():
    assert seen_by("/health/events/") == (["force_custom_plan"], "auto")


def test_the_admin_does_too():
    assert seen_by("/admin/health/outcomeevent/") == (["force_custom_plan"], "auto")


def test_an_export_keeps_custom_plans_while_it_streams():
    assert seen_by("/health/export.csv", streaming=True) == (["force_custom_plan"], "auto")


def test_a_creator_link_keeps_the_prepared_plans():
    assert seen_by("/l/ANA") == (["auto"], "auto")


def test_a_setting_the_operator_chose_is_put_back(settings):
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
    try:
        assert seen_by("/health/") == (["force_custom_plan"], "force_generic_plan")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET plan_cache_mode")
