"""A request id for every request: in the answer's X-Request-ID header, the logs and the outcome log."""

import json
import logging
import re
import time
import uuid

logger = logging.getLogger("attribution.requests")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{8,36}")
# What the request's log line says, besides its time, level, logger and message.
LINE_FIELDS = ("request_id", "method", "path", "endpoint", "brand_id", "outcome", "status", "duration_ms")


class RequestLineFormatter(logging.Formatter):
    """The request log line as one JSON object, the same keys the other lines have (python-json-logger's
    asctime, levelname, name, message) and LINE_FIELDS. Every API request writes this line; the library's
    formatter walks every attribute of every record to find its extras, which cost ~0.1 M instructions of
    a ~2.5 M order confirmation (bench/README.md), so this line is written from the fields it has."""

    def format(self, record):
        line = {
            "asctime": self.formatTime(record),
            "levelname": record.levelname,
            "name": record.name,
            "message": record.getMessage(),
        }
        for name in LINE_FIELDS:
            line[name] = getattr(record, name, None)
        return json.dumps(line)


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        request.request_id = incoming if _SAFE_ID.fullmatch(incoming) else uuid.uuid4().hex
        started = time.perf_counter()
        response = self.get_response(request)
        response["X-Request-ID"] = request.request_id
        if request.path.startswith("/api/"):
            logger.info(
                "request",
                extra={
                    "request_id": request.request_id,
                    "method": request.method,
                    "path": request.path,
                    "endpoint": getattr(request, "event_endpoint", ""),
                    "brand_id": getattr(request, "event_brand_id", None),
                    "outcome": getattr(request, "event_outcome", ""),
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )
        return response


class APIHostMiddleware:
    """The API's part of CommonMiddleware (config/wsgi.py): the host check against ALLOWED_HOSTS, and the
    answer's Content-Length. The API skips the rest of it: its slash redirects must never apply (a
    redirected POST loses its body; the paths take a trailing slash or none), and deciding them resolved
    every URL a second time (~55 k instructions a request, bench/README.md)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.get_host()  # DisallowedHost: 400, as CommonMiddleware answers it
        response = self.get_response(request)
        if not response.streaming and not response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response
