"""A request line over 8 KB (a long query string): the API's JSON 414 from whichever of nginx and gunicorn
refuses it, never their HTML page (config/serving.py, config/nginx.conf). Through the documented pair, as in
test_serving.py, whose fixture starts them; and the worker's own answer, without nginx."""

import json
import socket

from tests.config import test_serving

served = (
    test_serving.served
)  # the fixture: the documented nginx in front of gunicorn, started for this module

URI_TOO_LONG = {
    "success": False,
    "outcome": "invalid_params",
    "error": "The request line (path and query string) is longer than 8 KB. "
    "Fix: send fewer or shorter query parameters.",
}


def _get(port: int, target: str) -> tuple[int, str, bytes]:
    """The status, content type and body of the answer to a GET of `target`."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {
        name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)
    }
    return int(status_line.split()[1]), headers.get("content-type", ""), body


def test_nginx_answers_json_414_to_a_query_string_over_8_kb(served):
    proxy_port, _ = served

    status, content_type, body = _get(proxy_port, "/api/Affiliates/orders/A-1?pad=" + "x" * 9000)

    assert (status, content_type) == (414, "application/json")
    assert json.loads(body) == URI_TOO_LONG


def test_gunicorn_alone_answers_json_414_to_a_query_string_over_8_kb(served):
    _, app_port = served

    status, content_type, body = _get(app_port, "/api/Affiliates/orders/A-1?pad=" + "x" * 8200)

    assert (status, content_type) == (414, "application/json")
    assert json.loads(body) == URI_TOO_LONG


def test_a_query_string_under_the_limit_reaches_the_service_through_both(served):
    proxy_port, app_port = served
    target = "/api/Affiliates/orders/A-1?pad=" + "x" * 7000

    answers = [_get(port, target) for port in (proxy_port, app_port)]

    # The service itself answered: the read API wants a key.
    assert [(status, json.loads(body)["outcome"]) for status, _, body in answers] == [
        (401, "unauthorized")
    ] * 2


def test_the_worker_writes_the_json_414_to_the_client():
    # Without nginx installed: the worker's own answer, written to a socket as gunicorn hands it one.
    from gunicorn.config import Config
    from gunicorn.http.errors import LimitRequestLine

    from config.serving import JsonRefusalSyncWorker

    class Log:
        def warning(self, *args):
            pass

        def debug(self, *args):
            pass

    worker = JsonRefusalSyncWorker.__new__(JsonRefusalSyncWorker)
    worker.cfg, worker.log = Config(), Log()
    server, client = socket.socketpair()
    with server, client:
        worker.handle_error(None, server, ("203.0.113.5", 4000), LimitRequestLine(9000, 8190))
        server.shutdown(socket.SHUT_WR)
        answer = client.recv(65536)

    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 URI Too Long\r\n")
    assert b"Content-Type: application/json" in head
    assert json.loads(body) == URI_TOO_LONG
