"""The WSGI application production serves (config/wsgi.py): /api/ through the API's own handler and
middleware stack, every other path through Django's. Called here as gunicorn calls it."""

import io
import json
import sys

import pytest
from django.core import signals
from django.db import close_old_connections

from attribution.models import Order
from config.wsgi import application
from tests.attribution.keyed import caller_of, commission_for


@pytest.fixture
def connection_kept_across_requests():
    """Called directly, Django's WSGI handler closes the database connection after each request
    (close_old_connections), which would end the test's transaction; Django's test client keeps it the
    same way."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


def call(method: str, path: str, body: dict | None = None, **headers) -> tuple[int, dict, bytes]:
    """One request through the WSGI application: (status, headers, body)."""
    raw = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        **headers,
    }
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = dict(response_headers)

    result = application(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        result.close()
    return started["status"], started["headers"], content


@pytest.mark.usefixtures("connection_kept_across_requests")
def test_each_event_path_reaches_its_endpoint_every_time_with_or_without_its_slash(prop):
    for n, path in enumerate(["/api/order_confirmation", "/api/order_confirmation/"] * 2):
        body = {
            "orderAmount": 5,
            "orderId": f"WSGI-{n}",
            "currency": "USD",
            "page_url": f"https://{prop.host}/",
        }
        status, headers, content = call("POST", path, body)

        assert status == 200, content
        assert json.loads(content)["outcome"] == "no_attribution"
        assert headers["X-Request-ID"]

    assert Order.objects.count() == 4


@pytest.mark.usefixtures("connection_kept_across_requests")
def test_the_read_api_finds_each_order_its_path_names(brand, prop):
    alice = caller_of(brand, "alice")
    commission_for(brand, order_id="WSGI-A")
    commission_for(brand, order_id="WSGI-B")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {alice.plaintext}"}

    for order_id in ("WSGI-A", "WSGI-B", "WSGI-A"):
        status, _, content = call("GET", f"/api/Affiliates/orders/{order_id}", **auth)
        assert status == 200, content
        assert json.loads(content)["order"]["order_id"] == order_id
    status, _, content = call("GET", "/api/Affiliates/orders/WSGI-C", **auth)
    assert status == 404
    assert json.loads(content)["outcome"] == "order_not_found"


@pytest.mark.usefixtures("connection_kept_across_requests")
def test_an_unknown_api_path_answers_json_404_every_time(db):
    for _ in range(2):
        status, _, content = call("POST", "/api/Affiliates/refund", {})
        assert status == 404
        assert json.loads(content) == {
            "success": False,
            "outcome": "not_found",
            "error": "No endpoint at /api/Affiliates/refund.",
        }


def test_the_served_process_s_log_records_skip_what_no_line_prints():
    import logging

    # config.wsgi's application (imported above) is built as gunicorn builds it: its records gather no
    # caller's file, thread or process (config.logs.lean_records), which no log line of the service prints.
    assert logging._srcfile is None
    assert not (logging.logThreads or logging.logProcesses or logging.logMultiprocessing)
