"""The plain-WSGI floor: `gunicorn bench.floor.plain:application`. No framework: a WSGI callable,
`json.loads` and psycopg, running the same statements as the Django floor (bench/floor/work.py).

Its connection is the project's (config/settings.py, same environment): same database, statement
timeout, connect timeout, server-side binding (psycopg's default cursor) and prepare threshold,
autocommit, kept open by each worker and replaced after CONN_MAX_AGE seconds as Django does.
"""

import json
import time
import uuid

import psycopg

from config import settings as project

from . import work

_db = project.DATABASES["default"]
_options = _db.get("OPTIONS", {})
_CONNECT = {
    "dbname": _db["NAME"],
    "user": _db["USER"],
    "password": _db["PASSWORD"],
    "host": _db["HOST"],
    "port": _db["PORT"],
    "options": _options.get("options", ""),
    "connect_timeout": _options.get("connect_timeout", 3),
    "prepare_threshold": _options.get("prepare_threshold", 5),
    "autocommit": True,
}
_MAX_AGE = _db.get("CONN_MAX_AGE", 0)

_connection: psycopg.Connection | None = None
_opened = 0.0


def _conn() -> psycopg.Connection:
    global _connection, _opened
    if _connection is not None and (_connection.closed or time.monotonic() - _opened > _MAX_AGE):
        _connection.close()
        _connection = None
    if _connection is None:
        _connection = psycopg.connect(**{k: v for k, v in _CONNECT.items() if v not in ("", None)})
        _opened = time.monotonic()
    return _connection


def query(sql, params):
    with _conn().cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


_ENDPOINTS = {
    "/api/order_confirmation": "order_confirmation",
    "/api/Affiliates/cancel": "cancel",
    "/api/Affiliates/update": "update",
}


def _respond(start_response, status: int, body: dict) -> list[bytes]:
    data = json.dumps(body).encode()
    reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}
    start_response(
        f"{status} {reason.get(status, 'Error')}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(data)))],
    )
    return [data]


def application(environ, start_response):
    endpoint = _ENDPOINTS.get(environ.get("PATH_INFO", ""))
    if endpoint is None:
        return _respond(
            start_response, 404, {"success": False, "outcome": "not_found", "error": "No endpoint."}
        )
    if environ["REQUEST_METHOD"] != "POST":
        return _respond(start_response, 405, {"success": False, "outcome": "method_not_allowed", "error": ""})
    length = int(environ.get("CONTENT_LENGTH") or 0)
    raw = environ["wsgi.input"].read(length) if length else b""
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    request_id = uuid.uuid4().hex
    if endpoint == "order_confirmation":
        answer = work.order_confirmation(query, raw, data, request_id)
    else:
        authorization = environ.get("HTTP_AUTHORIZATION", "")
        answer = work.change(query, endpoint, raw, data, authorization, request_id)
    return _respond(start_response, answer.status, answer.body)
