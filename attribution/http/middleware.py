"""The API's own middleware (config/wsgi.py, settings.API_MIDDLEWARE): a request id for every request (in
the answer's X-Request-ID header, the logs and the outcome log), CORS for the endpoint browsers call, and
the host check."""

import logging
import re
import secrets
import time
from urllib.parse import urlsplit

import orjson
from django.conf import settings
from django.http import HttpResponse
from django.utils.cache import patch_vary_headers

logger = logging.getLogger("attribution.requests")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{8,36}")
# What the request's log line says, besides its time, level, logger and message.
LINE_FIELDS = ("request_id", "method", "path", "endpoint", "brand_id", "outcome", "status", "duration_ms")


class RequestLineFormatter(logging.Formatter):
    """The request log line as one JSON object, the same keys the other lines have (python-json-logger's
    asctime, levelname, name, message) and LINE_FIELDS. Every API request writes this line; the library's
    formatter walks every attribute of every record to find its extras, which cost ~0.1 M instructions of
    a ~2.5 M order confirmation (bench/README.md), so this line is written from the fields it has, and
    encoded by orjson (the standard library's encoder took ~40k instructions a line, docs/performance.md)."""

    _second: tuple = (None, "")  # (a whole second, its text): the lines written within it share the text

    def formatTime(self, record, datefmt=None):
        """Logging's own, with each second's text made once: the local time and strftime of every line cost
        ~10k instructions, and a busy worker writes many lines a second."""
        if datefmt:
            return super().formatTime(record, datefmt)
        second, text = self._second
        if int(record.created) != second:
            text = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = (int(record.created), text)
        return self.default_msec_format % (text, record.msecs)

    def format(self, record):
        line = {
            "asctime": self.formatTime(record),
            "levelname": record.levelname,
            "name": record.name,
            "message": record.getMessage(),
        }
        for name in LINE_FIELDS:
            line[name] = getattr(record, name, None)
        return orjson.dumps(line).decode()


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        # 128 random bits in 32 hex digits, as uuid4().hex wrote them (without its version digits) at a third
        # of the cost: the UUID object was built only to be written out.
        request.request_id = incoming if _SAFE_ID.fullmatch(incoming) else secrets.token_hex(16)
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
    every URL a second time (~55 k instructions a request, bench/README.md).

    The host check is Django's own (request.get_host()), run once per Host header a process accepts: a
    service is reached under a handful of names, and each check cost ~35k instructions of an order
    (docs/performance.md). ALLOWED_HOSTS does not change while the process runs. With
    USE_X_FORWARDED_HOST the host is read from another header, so every request is checked."""

    REMEMBERED_HOSTS = 64  # accepted Host headers remembered, at most; any other is checked each time

    def __init__(self, get_response):
        self.get_response = get_response
        self.accepted_hosts: set[str] = set()
        self.remember = not settings.USE_X_FORWARDED_HOST

    def __call__(self, request):
        host = request.META.get("HTTP_HOST")
        if host not in self.accepted_hosts:
            request.get_host()  # DisallowedHost: 400, as CommonMiddleware answers it
            if self.remember and host and len(self.accepted_hosts) < self.REMEMBERED_HOSTS:
                self.accepted_hosts.add(host)
        response = self.get_response(request)
        if not response.streaming and not response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response


class BrowserCallersMiddleware:
    """CORS for the one endpoint browsers call from brands' own pages (settings.CORS_URLS_REGEX; docs/api.md,
    "Browser callers"): a preflight from any origin is answered here, without credentials, and a cross-origin
    answer may be read by any origin and exposes X-Request-ID. Every other path answers no CORS.

    django-cors-headers gave the same headers, but built the request's case-insensitive header mapping
    and looked up settings it does not find (an exception each) on every request: ~0.19 M instructions
    of a 2.38 M order confirmation (docs/performance.md). This policy has one origin rule and no
    credentials, so it is read from the settings once."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.paths = re.compile(settings.CORS_URLS_REGEX)
        self.allow_methods = ", ".join(settings.CORS_ALLOW_METHODS)
        self.allow_headers = ", ".join(settings.CORS_ALLOW_HEADERS)
        self.expose_headers = ", ".join(settings.CORS_EXPOSE_HEADERS)
        self.max_age = str(settings.CORS_PREFLIGHT_MAX_AGE)

    def __call__(self, request):
        if not self.paths.match(request.path_info):
            return self.get_response(request)
        meta = request.META
        if request.method == "OPTIONS" and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in meta:
            response = HttpResponse(headers={"content-length": "0"})  # a preflight is not an event
        else:
            response = self.get_response(request)
        patch_vary_headers(response, ("origin",))
        origin = meta.get("HTTP_ORIGIN")
        if not origin or not _is_url(origin):
            return response
        response["access-control-allow-origin"] = "*"
        response["access-control-expose-headers"] = self.expose_headers
        if request.method == "OPTIONS":
            response["access-control-allow-headers"] = self.allow_headers
            response["access-control-allow-methods"] = self.allow_methods
            response["access-control-max-age"] = self.max_age
        return response


def _is_url(origin: str) -> bool:
    try:
        urlsplit(origin)
    except ValueError:  # "https://[shop" : no origin a browser sends
        return False
    return True
