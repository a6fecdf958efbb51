"""The one outbound HTTP client (httpx): every call a URL check, a guarded connection, a total deadline, a
capped body, no redirects, and bounded retries of idempotent calls (docs/architecture.md, "Calls out").

- A URL is called over https; over plain http only at a (host, port) of `Policy.plain_http` (the platforms'
  stand-in) or, with `Policy.local`, anywhere (a developer's local alert receiver). Those pairs may resolve to
  this machine or a private network; every other host must resolve to public addresses only (addresses.py).
- The deadline covers the whole call, retries and their waits included: every socket read and write waits at
  most what is left of it, and the body is read as a stream, so a server sending a byte every few seconds
  cannot keep a call alive past it. `budget` narrows it for a block (a sync run's own budget).
- The body is read up to `Policy.max_bytes` (after decompression); past it, AnswerTooLarge (or, with
  `Policy.truncate`, what was read).
- Retried: an idempotent call (GET, HEAD, PUT, DELETE, or one marked `idempotent`) that got no connection, a
  broken answer, a 5xx or a 429, `Policy.retries` times, waiting `Policy.backoff` doubled each time (the
  injected `sleep`), while the deadline allows.
- `route(transport, clock=, sleep=)` sends every call through `transport` instead of the network (tests, the
  bench: tests/outbound_double.py); the URL check still runs.
"""

import contextlib
import contextvars
import time
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpcore
import httpx

from .addresses import address_allowed, host_problem, literal, resolve
from .errors import AnswerTooLarge, BadAnswer, DeadlineExceeded, OutboundError, Refused, Unreachable

IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF = 5.0


@dataclass(frozen=True)
class Policy:
    """What a caller allows its calls (built from settings by the caller)."""

    deadline: float  # seconds for the whole call
    max_bytes: int  # the most of an answer's body read
    truncate: bool = False  # past max_bytes: keep what was read (True), or AnswerTooLarge
    plain_http: frozenset = frozenset()  # {(host, port)}: plain http, and this machine's or a private address
    local: bool = False  # plain http anywhere, and this machine's addresses (never a private network's)
    retries: int = 0
    backoff: float = 0.5
    user_agent: str = "creator-attribution/1"


@dataclass
class _Routing:
    transport: httpx.BaseTransport | None = None
    clock: object = time.monotonic
    sleep: object = time.sleep


_routing = _Routing()
_budget_until: contextvars.ContextVar[float | None] = contextvars.ContextVar("outbound_budget", default=None)


@contextlib.contextmanager
def route(transport: httpx.BaseTransport, *, clock=None, sleep=None):
    """Within the block, every call goes through `transport` (and waits and reads time with `sleep`/`clock`)."""
    global _routing
    before = _routing
    _routing = _Routing(transport, clock or time.monotonic, sleep or time.sleep)
    try:
        yield
    finally:
        _routing = before


@contextlib.contextmanager
def budget(seconds: float):
    """Within the block, no call's deadline runs past `seconds` from now (a sync run's budget)."""
    until = _routing.clock() + max(seconds, 0.0)
    outer = _budget_until.get()
    token = _budget_until.set(until if outer is None else min(outer, until))
    try:
        yield
    finally:
        _budget_until.reset(token)


def budget_left() -> float | None:
    """Seconds left of the innermost `budget`, or None outside one."""
    until = _budget_until.get()
    return None if until is None else until - _routing.clock()


def check_url(url: str, policy: Policy) -> tuple[str, int]:
    """(host, port) of `url` when it may be called under `policy`; Refused otherwise. DNS is checked on connect."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise Refused(f"not a valid URL: {url[:200]!r}") from exc
    host = (parts.hostname or "").lower()
    problem = host_problem(host)
    if problem:
        raise Refused(problem)
    if parts.username or parts.password:
        raise Refused("a URL with a user name or password is not called")
    if parts.scheme not in ("http", "https"):
        raise Refused(f"refused to call {host} over {parts.scheme or 'no scheme'}: https only")
    if port == 0:
        raise Refused("the URL's port is not valid")
    port = port or (443 if parts.scheme == "https" else 80)
    listed = (host, port) in policy.plain_http
    if parts.scheme == "http" and not (listed or policy.local):
        raise Refused(f"refused to call {host} over http: https only")
    address = literal(host)
    if address is not None and not address_allowed(address, loopback=policy.local, private=listed):
        raise Refused(f"{host} is an address the service does not call")
    return host, port


def request(
    method: str,
    url: str,
    *,
    policy: Policy,
    params=None,
    json=None,
    content: bytes | None = None,
    data=None,
    headers: dict | None = None,
    auth=None,
    idempotent: bool | None = None,
) -> httpx.Response:
    """The answer to one call, its body read whole (at most `policy.max_bytes`), redirects not followed.
    Raises Refused, Unreachable, BadAnswer, DeadlineExceeded or AnswerTooLarge (config.lib.outbound.errors)."""
    method = method.upper()
    check_url(url, policy)
    clock, sleep = _routing.clock, _routing.sleep
    deadline_at = clock() + policy.deadline
    until = _budget_until.get()
    if until is not None:
        deadline_at = min(deadline_at, until)
    retries = policy.retries if (idempotent if idempotent is not None else method in IDEMPOTENT) else 0
    attempt = 0
    while True:
        try:
            response = _once(
                method, url, policy, deadline_at, clock, params, json, content, data, headers, auth
            )
            failure = None if response.status_code not in RETRIED_STATUSES else response
        except (Unreachable, BadAnswer) as exc:
            response, failure = None, exc
        if failure is None or attempt >= retries:
            if isinstance(failure, OutboundError):
                raise failure
            return response
        wait = min(policy.backoff * 2**attempt, MAX_BACKOFF)
        if clock() + wait >= deadline_at:
            if isinstance(failure, OutboundError):
                raise failure
            return response
        attempt += 1
        sleep(wait)


def _once(method, url, policy, deadline_at, clock, params, json, content, data, headers, auth):
    left = deadline_at - clock()
    if left <= 0:
        raise DeadlineExceeded(f"no time left to call {urlsplit(url).hostname}")
    transport = _routing.transport or _guarded_transport(policy, deadline_at, clock)
    host = urlsplit(url).hostname
    with httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(left),
        follow_redirects=False,
        trust_env=False,  # no proxy, no .netrc credentials from the environment
        headers={"User-Agent": policy.user_agent, "Accept-Encoding": "gzip, deflate"},
    ) as client:
        try:
            with client.stream(
                method, url, params=params, json=json, content=content, data=data, headers=headers, auth=auth
            ) as answer:
                body = _read(answer, policy, deadline_at, clock, host)
        except httpx.TimeoutException as exc:
            raise DeadlineExceeded(f"{host} did not answer within {policy.deadline:g} s") from exc
        except (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.CloseError) as exc:
            raise Unreachable(f"{host} could not be reached ({type(exc).__name__})") from exc
        except (httpx.RemoteProtocolError, httpx.DecodingError) as exc:
            raise BadAnswer(f"{host} answered with a broken HTTP answer") from exc
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
            raise Refused(f"not a URL the service calls: {exc}") from exc
    kept = [(k, v) for k, v in answer.headers.multi_items() if k.lower() != "content-encoding"]
    return httpx.Response(answer.status_code, headers=kept, content=body, request=answer.request)


def _read(answer: httpx.Response, policy: Policy, deadline_at: float, clock, host) -> bytes:
    max_bytes = policy.max_bytes
    declared = answer.headers.get("Content-Length", "")
    encoding = answer.headers.get("Content-Encoding", "identity").strip().lower()
    if declared.isdigit() and int(declared) > max_bytes and encoding == "identity" and not policy.truncate:
        raise AnswerTooLarge(f"{host} answered {int(declared):,} bytes, over the {max_bytes:,} read")
    if encoding in ("gzip", "x-gzip", "deflate"):
        inflate = zlib.decompressobj(47 if "gzip" in encoding else zlib.MAX_WBITS)
    elif encoding in ("identity", ""):
        inflate = None
    else:
        raise BadAnswer(f"{host} answered in the {encoding[:30]} encoding, which is not read")
    body = bytearray()
    # An answer a test transport made from bytes comes read (and inflated) already; the network's never does.
    if answer.is_stream_consumed:
        chunks, inflate = [answer.content], None
    else:
        chunks = answer.iter_raw()
    for chunk in chunks:
        if inflate is not None:
            try:
                # Never more than the cap's worth out of one chunk: a small compressed answer can inflate a
                # thousandfold.
                chunk = inflate.decompress(chunk, max_bytes + 1 - len(body))
            except zlib.error as exc:
                raise BadAnswer(f"{host} answered a body that does not inflate") from exc
        body += chunk
        if len(body) > max_bytes and policy.truncate:
            return bytes(body[:max_bytes])
        if len(body) > max_bytes:
            raise AnswerTooLarge(f"{host} answered over the {max_bytes:,} bytes read")
        if clock() > deadline_at:
            raise DeadlineExceeded(f"{host}'s answer did not end within the call's deadline")
    return bytes(body)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every read and write waits at most what is left of the call's deadline."""

    def __init__(self, stream, deadline_at: float, clock):
        self._stream, self._deadline_at, self._clock = stream, deadline_at, clock

    def _left(self, timeout, error):
        left = self._deadline_at - self._clock()
        if left <= 0:
            raise error("the call's deadline passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes, timeout=None):
        return self._stream.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer, timeout=None):
        return self._stream.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self):
        return self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        tls = self._stream.start_tls(
            ssl_context, server_hostname, self._left(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(tls, self._deadline_at, self._clock)

    def get_extra_info(self, info):
        return self._stream.get_extra_info(info)


class _GuardedBackend(httpcore.SyncBackend):
    """Connects only to an address resolve() checked, and every stream to the call's deadline (TLS still
    verifies the certificate against the host name)."""

    def __init__(self, policy: Policy, deadline_at: float, clock):
        self._policy, self._deadline_at, self._clock = policy, deadline_at, clock

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        listed = (host.lower(), port) in self._policy.plain_http
        address = resolve(host, port, loopback=self._policy.local, private=listed)
        left = self._deadline_at - self._clock()
        if left <= 0:
            raise httpcore.ConnectTimeout("the call's deadline passed")
        stream = super().connect_tcp(
            address, port, left if timeout is None else min(timeout, left), local_address, socket_options
        )
        return _DeadlineStream(stream, self._deadline_at, self._clock)


def _guarded_transport(policy: Policy, deadline_at: float, clock) -> httpx.HTTPTransport:
    transport = httpx.HTTPTransport(retries=0)
    # httpx takes no network backend of its own: its pool is replaced by one on the guarded backend.
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        network_backend=_GuardedBackend(policy, deadline_at, clock),
        retries=0,
    )
    return transport
