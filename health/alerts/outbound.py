"""Outbound HTTP to brands' webhook URLs, guarded against server-side request forgery (docs/alerts.md).

A brand chooses the URL, so the service must not become its way into internal addresses. Every address
a host resolves to is checked at connect time, and the connection goes to the checked address itself
(httpcore's network backend is the one place connections are made), so a DNS answer that changes between
a check and the connect cannot point it elsewhere. Only public unicast addresses are allowed, over
HTTPS; with WEBHOOKS_ALLOW_LOCAL (on while DEBUG) loopback and plain HTTP are allowed too, for a local
receiver. Redirects are not followed. Every call has a timeout.
"""

import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpcore
from django.conf import settings

MAX_BODY_KEPT = 200  # characters of the receiver's answer kept in the delivery log


class AddressNotAllowed(Exception):
    """The URL's host is, or resolves to, an address webhooks may not reach."""


@dataclass(frozen=True)
class Response:
    status: int
    body: str  # the first MAX_BODY_KEPT characters
    duration_ms: int


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a webhook URL (scheme, host, literal address), or None. DNS is checked on send."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "This is not a valid URL."
    allow_local = settings.WEBHOOKS_ALLOW_LOCAL
    if parts.scheme != "https" and not (allow_local and parts.scheme == "http"):
        return "Use an https:// URL."
    if not parts.hostname:
        return "The URL needs a host name."
    if parts.username or parts.password:
        return "Leave user names and passwords out of the URL; the signature authenticates each delivery."
    if port == 0:
        return "The URL's port is not valid."
    try:
        literal = ipaddress.ip_address(parts.hostname)
    except ValueError:
        if parts.hostname == "localhost" and not allow_local:
            return "Webhooks cannot be sent to this service's own machine."
        return None
    if not address_allowed(literal):
        return "Webhooks can only be sent to public internet addresses."
    return None


# IPv6 ranges that carry an IPv4 address inside. Python counts most of them as global, but where a gateway
# routes them (NAT64, 6to4 relays, an old stack's IPv4-compatible form) they reach that IPv4 address, which
# may be private: the embedded address is judged instead (docs/alerts.md, "Where webhooks may go").
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: the IPv4 part's place is the operator's
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]  # the client's address; the server's is public by construction
    if address in _NAT64_WELL_KNOWN or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if address.version == 6:
        if address in _NAT64_LOCAL_USE:
            return False  # where its IPv4 address sits is the network's choice: it cannot be checked
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            address = embedded
    if address.is_loopback:
        return settings.WEBHOOKS_ALLOW_LOCAL
    return address.is_global and not address.is_multicast


class GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself, refuses if any of its addresses is not allowed, and connects to the
    checked address (TLS still verifies the certificate against the host name)."""

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc.strerror}") from exc
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
        refused = [str(a) for a in addresses if not address_allowed(a)]
        if not addresses or refused:
            raise AddressNotAllowed(
                f"{host} resolves to an address webhooks may not reach ({', '.join(refused)})"
            )
        return super().connect_tcp(str(addresses[0]), port, timeout, local_address, socket_options)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float | None = None) -> Response:
    """POST `body` to `url`; raises AddressNotAllowed, httpcore.TimeoutException or another
    httpcore error when no answer came."""
    problem = url_problem(url)
    if problem:
        raise AddressNotAllowed(problem)
    seconds = timeout if timeout is not None else settings.WEBHOOK_TIMEOUT_SECONDS
    started = time.monotonic()
    with (
        httpcore.ConnectionPool(network_backend=GuardedBackend(), retries=0) as pool,
        pool.stream(
            "POST",
            url,
            headers={**headers, "Content-Length": str(len(body))},
            content=body,
            extensions={"timeout": {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}},
        ) as response,
    ):
        kept = b""
        for chunk in response.iter_stream():  # a receiver's answer is read only as far as the log keeps it
            kept += chunk
            if len(kept) >= MAX_BODY_KEPT * 4:
                break
    text = kept.decode("utf-8", "replace")[:MAX_BODY_KEPT]
    return Response(response.status, text, int((time.monotonic() - started) * 1000))
