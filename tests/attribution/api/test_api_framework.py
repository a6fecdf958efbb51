"""What every API answer shares (docs/decisions.md, "Response envelope"), the OpenAPI schema and docs, the request log, and the
production settings."""

import json
import logging
import os
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    "path", ["/api/nothing-here", "/api/Affiliates/", "/api/Affiliates/refund", "/api/order-confirmation"]
)
def test_unknown_api_paths_answer_json_404(db, path):
    # A real caller faces the CSRF check, which the default test client skips: a typo in a
    # path must get this 404, not Django's HTML "CSRF verification failed" page.
    client = Client(enforce_csrf_checks=True)
    response = client.post(path, "{}", content_type="application/json")
    assert response.status_code == 404
    assert response.json() == {"success": False, "outcome": "not_found", "error": f"No endpoint at {path}."}
    assert response.content.startswith(b'{"success":false,')  # written as every other answer is


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/order_confirmation"),
        ("put", "/api/Affiliates/cancel"),
        ("delete", "/api/Affiliates/update"),
    ],
)
def test_wrong_methods_answer_json_405_and_are_not_recorded(client, db, method, path):
    from health.log.models import OutcomeEvent

    response = getattr(client, method)(path)
    assert response.status_code == 405
    assert response.json()["success"] is False
    assert response.json()["outcome"] == "method_not_allowed"
    assert not OutcomeEvent.objects.exists()


@pytest.mark.parametrize("path", ["/api/order_confirmation", "/api/order_confirmation/"])
def test_the_interface_paths_work_with_or_without_a_trailing_slash_and_never_redirect(client, prop, path):
    body = {"orderAmount": 5, "orderId": path, "currency": "USD", "page_url": f"https://{prop.host}/"}
    response = client.post(path, json.dumps(body), content_type="application/json")
    assert response.status_code == 200


def test_the_openapi_schema_documents_every_endpoint(client, db):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert set(schema["paths"]) >= {
        "/api/order_confirmation",
        "/api/Affiliates/cancel",
        "/api/Affiliates/update",
        "/api/Affiliates/orders/{order_id}",
    }
    assert schema["components"]["securitySchemes"]["developerKey"]["scheme"] == "bearer"


def test_the_interactive_docs_load_their_assets_from_this_service(client, db):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn." not in page and "unpkg" not in page


def test_each_api_request_writes_one_json_log_line_with_what_operators_follow(client, prop, caplog):
    body = {"orderAmount": 5, "orderId": "LOG-1", "currency": "USD", "page_url": f"https://{prop.host}/"}
    with caplog.at_level(logging.INFO, logger="attribution.requests"):
        response = client.post(
            "/api/order_confirmation",
            json.dumps(body),
            content_type="application/json",
            HTTP_X_REQUEST_ID="req-12345678",
        )
    [line] = [r for r in caplog.records if r.name == "attribution.requests"]
    assert response["X-Request-ID"] == "req-12345678"
    assert (line.request_id, line.endpoint, line.brand_id, line.outcome, line.status) == (
        "req-12345678",
        "order_confirmation",
        prop.brand_id,
        "no_attribution",
        200,
    )
    assert line.duration_ms >= 0


def test_the_log_line_is_one_json_object_with_the_same_keys_as_every_other_line():
    from attribution.http.middleware import LINE_FIELDS, RequestLineFormatter

    record = logging.LogRecord("attribution.requests", logging.INFO, __file__, 1, "request", None, None)
    record.__dict__.update(request_id="req-1", method="POST", path="/api/ordér", status=200, duration_ms=1.25)
    line = json.loads(RequestLineFormatter().format(record))
    assert list(line) == ["asctime", "levelname", "name", "message", *LINE_FIELDS]
    assert (line["name"], line["message"], line["path"], line["brand_id"], line["duration_ms"]) == (
        "attribution.requests",
        "request",
        "/api/ordér",
        None,  # a field the request did not set
        1.25,
    )


def test_the_log_line_of_a_keyed_request_with_a_broken_body_names_the_key_s_brand(client, alice, caplog):
    with caplog.at_level(logging.INFO, logger="attribution.requests"):
        client.post("/api/Affiliates/cancel", "{not json", content_type="application/json", **alice.headers)
    [line] = [r for r in caplog.records if r.name == "attribution.requests"]
    assert (line.endpoint, line.brand_id, line.outcome, line.status) == (
        "cancel",
        alice.brand.id,
        "invalid_params",
        400,
    )


def test_postgresql_connections_carry_a_statement_timeout(db):
    if connection.vendor != "postgresql":
        pytest.skip("the statement timeout is a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] not in ("0", "")


def test_postgresql_connections_compile_no_statement(db):
    # JIT compilation took ~0.3 s of a read of a few pages of the outcome log (docs/performance.md).
    if connection.vendor != "postgresql":
        pytest.skip("JIT is a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_production_settings_pass_the_deployment_checklist():
    env = {
        **os.environ,
        "DEBUG": "False",
        "SECRET_KEY": "x" * 20 + "production-like-secret-key-for-the-check-0123456789",
        "ALLOWED_HOSTS": "attribution.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    env = {**os.environ, "DEBUG": "False", "SECRET_KEY": ""}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_an_error_outside_the_api_views_still_answers_json_under_api(rf):
    import config.urls
    from attribution.api.views import server_error

    assert config.urls.handler500 == "attribution.api.views.server_error"
    api_answer = server_error(rf.get("/api/Affiliates/cancel"))
    page_answer = server_error(rf.get("/health/"))

    assert api_answer.status_code == 500
    assert json.loads(api_answer.content) == {
        "success": False,
        "outcome": "handler_error",
        "error": "Processing error on the service side.",
    }
    assert page_answer.status_code == 500
    assert page_answer["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    "path", ["/api/order_confirmation", "/api/Affiliates/cancel", "/api/Affiliates/update"]
)
def test_a_plain_options_request_describes_the_endpoint_in_the_envelope_and_is_not_recorded(client, db, path):
    from health.log.models import OutcomeEvent

    response = client.options(path)

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert response.json()["outcome"] == "options"
    assert response["Allow"] == "POST, OPTIONS"
    assert not OutcomeEvent.objects.exists()


# Servers send what their HTTP client defaults to, and some ask for HTML or XML: the events are judged
# all the same and answered in JSON (docs/decisions.md, "Response envelope"), never refused as not acceptable.
@pytest.mark.parametrize("accept", ["text/html", "application/xml", "text/html,application/xhtml+xml;q=0.9"])
def test_every_endpoint_answers_json_whatever_the_client_accepts(client, prop, alice, accept):
    from attribution.models import Order
    from tests.attribution.keyed import CANCEL, UPDATE, commission_for, order_url

    commission_for(prop.brand, order_id="ACC-1")
    confirmation = {
        "orderAmount": 5,
        "orderId": "ACC-2",
        "currency": "USD",
        "page_url": f"https://{prop.host}/",
    }
    answers = [
        client.post(
            "/api/order_confirmation",
            json.dumps(confirmation),
            content_type="application/json",
            HTTP_ACCEPT=accept,
        ),
        client.post(
            UPDATE,
            json.dumps({"order_id": "ACC-1", "new_order_amount": "80.00", "currency": "USD"}),
            content_type="application/json",
            HTTP_ACCEPT=accept,
            **alice.headers,
        ),
        client.post(
            CANCEL,
            json.dumps({"order_id": "ACC-1"}),
            content_type="application/json",
            HTTP_ACCEPT=accept,
            **alice.headers,
        ),
        client.get(order_url("ACC-1"), HTTP_ACCEPT=accept, **alice.headers),
    ]

    assert [(a.status_code, a["Content-Type"], a.json()["outcome"]) for a in answers] == [
        (200, "application/json", "no_attribution"),
        (200, "application/json", "tracked"),
        (200, "application/json", "tracked"),
        (200, "application/json", "found"),
    ]
    assert Order.objects.filter(order_id="ACC-2").exists()


# --- the API's own middleware stack ---------------------------------------------------------------------
# Production serves /api/ through settings.API_MIDDLEWARE (config/wsgi.py); the test client's default is the
# page stack. The answers a browser and an operator see must not depend on which one served them.


@pytest.fixture(params=["page stack", "API stack"])
def either_stack(request, settings):
    if request.param == "API stack":
        settings.MIDDLEWARE = settings.API_MIDDLEWARE
    return Client()  # a fresh handler, which builds its middleware from the setting


def test_both_stacks_answer_the_browser_preflight_from_any_origin(either_stack, db):
    response = either_stack.options(
        "/api/order_confirmation",
        HTTP_ORIGIN="https://any-brand-shop.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type,x-request-id",
    )

    assert response.status_code == 200
    assert response.content == b""
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Allow-Methods"] == "POST, OPTIONS"
    assert response["Access-Control-Allow-Headers"] == "content-type, x-request-id"
    assert response["Access-Control-Max-Age"] == "86400"
    assert response["Vary"] == "origin"
    assert "Access-Control-Allow-Credentials" not in response


def test_both_stacks_let_any_origin_read_an_order_answer_and_its_request_id(either_stack, prop):
    body = {"orderAmount": 5, "orderId": "CORS-1", "currency": "USD", "page_url": f"https://{prop.host}/"}
    response = either_stack.post(
        "/api/order_confirmation/",
        json.dumps(body),
        content_type="text/plain",
        HTTP_ORIGIN="https://shop.acme.example",
        HTTP_X_REQUEST_ID="cors-req-1",
    )

    assert response.status_code == 200
    assert response["X-Request-ID"] == "cors-req-1"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Expose-Headers"] == "X-Request-ID"
    assert "origin" in response["Vary"].split(", ")  # the page stack's sessions add Cookie
    assert response["Content-Length"] == str(len(response.content))
    assert "Access-Control-Allow-Methods" not in response  # a preflight's header, not an answer's


def test_both_stacks_answer_an_order_without_origin_with_no_cors_but_vary(either_stack, prop):
    body = {"orderAmount": 5, "orderId": "CORS-2", "currency": "USD", "page_url": f"https://{prop.host}/"}
    response = either_stack.post("/api/order_confirmation", json.dumps(body), content_type="application/json")

    assert response.status_code == 200
    assert "origin" in response["Vary"].split(", ")
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.parametrize("path", ["/api/Affiliates/cancel", "/api/Affiliates/update", "/api/schema/"])
def test_both_stacks_answer_no_cors_beyond_the_browser_endpoint(either_stack, db, path):
    preflight = either_stack.options(
        path, HTTP_ORIGIN="https://shop.acme.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )

    assert "Access-Control-Allow-Origin" not in preflight
    assert "Vary" not in preflight or "origin" not in preflight["Vary"]


def test_the_api_stack_refuses_a_host_outside_allowed_hosts_every_time(settings, prop):
    from attribution.models import Order

    settings.MIDDLEWARE = settings.API_MIDDLEWARE
    api_stack = Client()
    body = {"orderAmount": 5, "orderId": "HOST-1", "currency": "USD", "page_url": f"https://{prop.host}/"}

    for order_id in ("HOST-1", "HOST-2"):  # the second after an accepted request under the right name
        refused = api_stack.post(
            "/api/order_confirmation",
            json.dumps({**body, "orderId": order_id}),
            content_type="application/json",
            HTTP_HOST="attacker.example",
        )
        assert refused.status_code == 400
        accepted = api_stack.post(
            "/api/order_confirmation",
            json.dumps({**body, "orderId": f"{order_id}-ok"}),
            content_type="application/json",
        )
        assert accepted.status_code == 200

    assert sorted(Order.objects.values_list("order_id", flat=True)) == ["HOST-1-ok", "HOST-2-ok"]


@pytest.mark.parametrize(
    "method, path",
    [
        ("post", "/api/order_confirmation"),
        ("post", "/api/Affiliates/cancel"),
        ("post", "/api/Affiliates/update"),
        ("get", "/api/order_confirmation"),
    ],
)
def test_every_answer_of_an_event_endpoint_names_its_methods(client, db, method, path):
    if method == "post":
        response = client.post(path, "{}", content_type="application/json")
    else:
        response = client.get(path)

    assert response["Allow"] == "POST, OPTIONS"


@pytest.mark.parametrize(
    "data",
    [
        {"success": True, "outcome": "tracked", "message": "Order attributed; a commission was created."},
        {"success": False, "outcome": "invalid_params", "error": 'Émile’s code\u2028ŝ \u2029 \x00 "quoted"'},
        {"order": {"amount": Decimal("12.50"), "received_at": datetime(2026, 11, 25, 12, 0, tzinfo=UTC)}},
        {"nested": [1, 2.5, None, True, {"k": []}]},
        None,
    ],
)
@pytest.mark.parametrize(
    "media_type, context",
    [("application/json", {}), ("application/json; indent=4", {}), ("application/json", {"indent": 2})],
)
def test_answers_are_rendered_byte_for_byte_as_drf_renders_them(data, media_type, context):
    from rest_framework.renderers import JSONRenderer

    from attribution.http.access import AnswerRenderer

    assert AnswerRenderer().render(data, media_type, context) == JSONRenderer().render(
        data, media_type, context
    )
