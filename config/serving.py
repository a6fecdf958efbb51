"""gunicorn's sync worker, answering the one refusal clients meet before the service sees the request in
the service's own JSON envelope (config/gunicorn.conf.py names it as `worker_class`).

A request line (method, path and query string) longer than gunicorn's `limit_request_line` is refused
before any WSGI code runs, and gunicorn's own answer is an HTML page with status 414, which no endpoint
documents. This worker answers it as docs/api.md promises every answer under /api/ is:
`{"success": false, "outcome": "invalid_params", "error": "… Fix: …"}`, still 414, the connection
closed. nginx in front gives the same answer for a line too long for its buffer (config/nginx.conf), so a
client sees one answer whichever of the two refused it. Every other refusal stays gunicorn's.
"""

import json

from gunicorn import util
from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.sync import SyncWorker

# gunicorn's largest accepted value, and the size of nginx's header buffer (large_client_header_buffers 8k).
REQUEST_LINE_MAX_BYTES = 8190

URI_TOO_LONG = {
    "success": False,
    "outcome": "invalid_params",
    "error": "The request line (path and query string) is longer than 8 KB. "
    "Fix: send fewer or shorter query parameters.",
}


def uri_too_long_answer() -> bytes:
    """The whole HTTP answer to a request line over the limit."""
    body = json.dumps(URI_TOO_LONG, separators=(",", ":")).encode()
    head = (
        "HTTP/1.1 414 URI Too Long\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class JsonRefusalSyncWorker(SyncWorker):
    """gunicorn's sync worker, with a JSON 414 for a request line over `limit_request_line`."""

    def handle_error(self, req, client, addr, exc):
        if not isinstance(exc, LimitRequestLine):
            return super().handle_error(req, client, addr, exc)
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("", -1))[0], exc)
        try:
            util.write_nonblock(client, uri_too_long_answer())
        except Exception:  # the client went away; gunicorn's own handler gives up alike
            self.log.debug("Failed to send error message.")
        return None
