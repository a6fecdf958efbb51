"""The one test double of every outbound call (config.lib.outbound): the platforms' API clients, the alert
webhooks and the ECB download all reach it in tests, never the network. It routes each call by its host to a
handler (a WSGI app such as the platforms' stand-in, or a function of the httpx.Request), records the calls, and
keeps a clock that only its `sleep` or a handler moves: a retry's wait or a trickling answer takes no time."""

from collections.abc import Callable, Iterator

import httpx
import pytest

from config.lib import outbound


class Trickle(httpx.SyncByteStream):
    """A body sent a piece at a time, `seconds` of the double's clock between pieces (a hostile server)."""

    def __init__(self, double: "OutboundDouble", pieces: list[bytes], seconds: float):
        self.double, self.pieces, self.seconds = double, pieces, seconds
        self.sent = 0

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.pieces:
            self.double.seconds += self.seconds
            self.sent += 1
            yield piece


class Endless(httpx.SyncByteStream):
    """A body that never ends (pieces of `size` bytes); `sent` counts what was read of it."""

    def __init__(self, size: int = 64 * 1024):
        self.size, self.sent = size, 0

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.sent += self.size
            yield b" " * self.size


class OutboundDouble(httpx.BaseTransport):
    def __init__(self):
        self.handlers: dict[str, Callable | httpx.BaseTransport] = {}
        self.fallback: Callable | httpx.BaseTransport | None = None
        self.calls: list[httpx.Request] = []
        self.seconds, self.waits = 1000.0, []

    def serve(self, host: str, handler) -> None:
        """Answer calls to `host` with `handler`: a function of the httpx.Request, or a transport."""
        self.handlers[host] = handler

    def serve_wsgi(self, host: str, app) -> None:
        """Answer calls to `host` with a WSGI app, in process (the platforms' stand-in, the service itself)."""
        self.handlers[host] = httpx.WSGITransport(app=app)

    def clock(self) -> float:
        return self.seconds

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.seconds += seconds

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.calls.append(request)
        handler = self.handlers.get(request.url.host, self.fallback)
        if handler is None:
            raise httpx.ConnectError(f"nothing serves {request.url.host} in this test", request=request)
        if isinstance(handler, httpx.BaseTransport):
            return handler.handle_request(request)
        return handler(request)

    def hosts_called(self) -> list[str]:
        return [request.url.host for request in self.calls]


@pytest.fixture
def outbound_double():
    """Every outbound call of the test goes to this double (add hosts with `serve`)."""
    double = OutboundDouble()
    with outbound.route(double, clock=double.clock, sleep=double.sleep):
        yield double
