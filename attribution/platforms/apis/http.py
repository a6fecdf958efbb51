"""The one HTTP client every call to a platform's API goes through (docs/threat-model.md, "Calls to the
platforms").

- A credential is sent over https only: plain http is refused unless the host is listed in
  settings.PLATFORM_PLAIN_HTTP_HOSTS (the stand-in's loopback in the demo, `standin.test` in tests).
- A WooCommerce site's address is the brand's to choose, so the service must not become its way into internal
  addresses: every address a host resolves to is checked when connecting, and the connection goes to the
  checked address (the rule of health.alerts.outbound, which this layer cannot import; loopback only for the
  listed plain-http hosts). Redirects are not followed. Every call has a timeout.
- Tests and benches route every call to the stand-in with `set_transport(httpx.WSGITransport(app=...))`.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

import httpcore
import httpx
from django.conf import settings

from .errors import PlatformAPIError

TIMEOUT = httpx.Timeout(20.0, connect=5.0)
USER_AGENT = "creator-attribution/1 (+order sync)"

_transport: httpx.BaseTransport | None = None


def set_transport(transport: httpx.BaseTransport) -> None:
    """Route every platform call through `transport` (tests, the bench: the stand-in's WSGI app)."""
    global _transport
    _transport = transport


def reset_transport() -> None:
    global _transport
    _transport = None


def platform_client() -> httpx.Client:
    """A new client (use it in a `with`): timeouts, no redirects, the guarded network unless overridden."""
    return httpx.Client(
        transport=_transport or _guarded_transport(),
        timeout=TIMEOUT,
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
    )


def check_url(url: str) -> str:
    """`url` when a credential may be sent to it; PlatformAPIError otherwise (plain http to an unlisted host)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise PlatformAPIError(f"not a valid URL: {url[:200]!r}") from exc
    if not parts.hostname:
        raise PlatformAPIError(f"the URL has no host: {url[:200]!r}")
    if parts.scheme == "https":
        return url
    if parts.scheme == "http" and parts.hostname in settings.PLATFORM_PLAIN_HTTP_HOSTS:
        return url
    raise PlatformAPIError(f"refused to call {parts.hostname} over {parts.scheme or 'no scheme'}: https only")


def shopify_origin(shop_domain: str) -> str:
    """Where a shop's API is called: settings.SHOPIFY_API_ORIGIN with the shop in it (https://{shop})."""
    return settings.SHOPIFY_API_ORIGIN.replace("{shop}", shop_domain).rstrip("/")


def _address_allowed(address) -> bool:
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself, refuses any non-public address (unless the host is a listed plain-http host),
    and connects to the address it checked, so a DNS answer that changes in between cannot point it elsewhere."""

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc.strerror}") from exc
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
        trusted = host in settings.PLATFORM_PLAIN_HTTP_HOSTS
        if not addresses or not (trusted or all(_address_allowed(a) for a in addresses)):
            raise httpcore.ConnectError(f"{host} resolves to an address the service does not call")
        return super().connect_tcp(str(addresses[0]), port, timeout, local_address, socket_options)


def _guarded_transport() -> httpx.HTTPTransport:
    transport = httpx.HTTPTransport(retries=0)
    # httpx takes no network backend of its own: its pool is replaced by one on the guarded backend.
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(), network_backend=_GuardedBackend(), retries=0
    )
    return transport
