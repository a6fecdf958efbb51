"""Outbound HTTP to brands' webhook URLs, through the one outbound client (config.lib.outbound; docs/alerts.md).

A brand chooses the URL, so the service must not become its way into internal addresses: only public unicast
addresses are called, over HTTPS, each checked when connecting and connected to as checked; with
WEBHOOKS_ALLOW_LOCAL (on while DEBUG) this machine's loopback and plain HTTP are allowed too, for a local
receiver. Redirects are not followed. Every call ends within WEBHOOK_TIMEOUT_SECONDS in all, and only the start
of the receiver's answer is read.
"""

import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from config.lib import outbound
from config.lib.outbound import address_allowed as _address_allowed
from config.lib.outbound.addresses import literal

MAX_BODY_KEPT = 200  # characters of the receiver's answer kept in the delivery log
USER_AGENT = "creator-attribution-webhooks/1"

AddressNotAllowed = outbound.Refused


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
    if outbound.host_problem(parts.hostname):
        return "Write the host as a name, or an IP address in its usual form."
    address = literal(parts.hostname)
    if address is None:
        if parts.hostname == "localhost" and not allow_local:
            return "Webhooks cannot be sent to this service's own machine."
        return None
    if not address_allowed(address):
        return "Webhooks can only be sent to public internet addresses."
    return None


def address_allowed(address) -> bool:
    return _address_allowed(address, loopback=settings.WEBHOOKS_ALLOW_LOCAL)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float | None = None) -> Response:
    """POST `body` to `url`; raises AddressNotAllowed (nothing sent), or another config.lib.outbound error when
    no answer came (DeadlineExceeded, Unreachable, BadAnswer)."""
    problem = url_problem(url)
    if problem:
        raise AddressNotAllowed(problem)
    policy = outbound.Policy(
        deadline=timeout if timeout is not None else settings.WEBHOOK_TIMEOUT_SECONDS,
        max_bytes=MAX_BODY_KEPT * 4,  # a receiver's answer is read only as far as the log keeps it
        truncate=True,
        local=settings.WEBHOOKS_ALLOW_LOCAL,
        user_agent=USER_AGENT,
    )
    started = time.monotonic()
    answer = outbound.request("POST", url, policy=policy, content=body, headers=headers)
    text = answer.content.decode("utf-8", "replace")[:MAX_BODY_KEPT]
    return Response(answer.status_code, text, int((time.monotonic() - started) * 1000))
