"""How a call to a platform's API is sent: through the one outbound client (config.lib.outbound, docs/threat-model.md
"Calls to the platforms"), with the platforms' policy read from settings.

- A credential is sent over https only; plain http only to a host:port of settings.PLATFORM_PLAIN_HTTP_HOSTS (the
  stand-in's in the demo, `standin.test` in tests; a bare host is port 80), which alone may be at a loopback or
  private address. Every other call goes to public addresses only, to the address checked.
- A call ends within PLATFORM_CALL_SECONDS in all and reads at most PLATFORM_ANSWER_MAX_BYTES of its answer.
  Redirects are not followed. The platform clients retry by their platforms' own rules (apis/shopify.py,
  apis/woocommerce.py), so this layer does not retry.
"""

import contextlib
import contextvars

import httpx
from django.conf import settings

from config.lib import outbound

from .errors import PlatformAPIError, PlatformUnavailable

USER_AGENT = "creator-attribution/1 (+order sync)"


_cap: contextvars.ContextVar[int | None] = contextvars.ContextVar("platform_answer_cap", default=None)


@contextlib.contextmanager
def capped(max_bytes: int):
    """Within the block, a platform's answer is read to at most `max_bytes` (a key handover's check: 1 MB)."""
    token = _cap.set(max_bytes)
    try:
        yield
    finally:
        _cap.reset(token)


def policy() -> outbound.Policy:
    cap = _cap.get()
    return outbound.Policy(
        deadline=settings.PLATFORM_CALL_SECONDS,
        max_bytes=settings.PLATFORM_ANSWER_MAX_BYTES
        if cap is None
        else min(cap, settings.PLATFORM_ANSWER_MAX_BYTES),
        plain_http=plain_http_pairs(settings.PLATFORM_PLAIN_HTTP_HOSTS),
        user_agent=USER_AGENT,
    )


def plain_http_pairs(entries) -> frozenset:
    """{(host, port)} of PLATFORM_PLAIN_HTTP_HOSTS: `host:port` (`[::1]:9100`), or a bare host for port 80."""
    pairs = set()
    for entry in (e.strip().lower() for e in entries):
        if entry.startswith("["):
            host, _, rest = entry[1:].partition("]")
            port = rest.removeprefix(":")
        elif entry.count(":") == 1:
            host, _, port = entry.partition(":")
        else:
            host, port = entry, ""
        if host:
            pairs.add((host, int(port) if port.isdigit() else 80))
    return frozenset(pairs)


def check_url(url: str) -> str:
    """`url` when a credential may be sent to it; PlatformAPIError otherwise (plain http to an unlisted host:port,
    an address the service does not call, an odd form of an address)."""
    try:
        outbound.check_url(url, policy())
    except outbound.Refused as exc:
        raise PlatformAPIError(str(exc)) from exc
    return url


def send(method: str, url: str, **kwargs) -> httpx.Response:
    """One call to a platform. A call that got no answer raises httpx.TransportError (the platform clients retry
    those); one out of time raises PlatformUnavailable; a refused URL or an answer over the cap, PlatformAPIError."""
    try:
        return outbound.request(method, url, policy=policy(), **kwargs)
    except outbound.DeadlineExceeded as exc:
        raise PlatformUnavailable(str(exc)) from exc
    except (outbound.Unreachable, outbound.BadAnswer) as exc:
        raise httpx.TransportError(str(exc)) from exc
    except (outbound.Refused, outbound.AnswerTooLarge) as exc:
        raise PlatformAPIError(str(exc)) from exc


def shopify_origin(shop_domain: str) -> str:
    """Where a shop's API is called: settings.SHOPIFY_API_ORIGIN with the shop in it (https://{shop})."""
    return settings.SHOPIFY_API_ORIGIN.replace("{shop}", shop_domain).rstrip("/")


class _Calls:
    """What `platform_client()` gives: get/post/request as on an httpx.Client, each one `send`, except that any
    failure is an httpx.HTTPError (what its callers catch)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def request(self, method: str, url: str, *, timeout: float | None = None, **kwargs) -> httpx.Response:
        """`timeout`, when given, shortens the call's whole deadline (a token renewal made under a row lock)."""
        try:
            if timeout is None:
                return send(method, url, **kwargs)
            with outbound.budget(timeout):
                return send(method, url, **kwargs)
        except PlatformAPIError as exc:
            raise httpx.TransportError(str(exc)) from exc

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> httpx.Response:
        return self.request("POST", url, **kwargs)


def platform_client() -> _Calls:
    """Calls to a platform as an httpx.Client would make them (use it in a `with`), through `send`."""
    return _Calls()
