"""Shopify's expiring offline tokens (docs/integration.md, "Shopify's expiring tokens"): the pair the token
endpoint answers (an access token living an hour, a refresh token living 90 days), its refresh a few minutes
before the access token expires and once after a 401, and the one-time exchange of a non-expiring token of
before (lazily, at the shop's next call). From 2027-01-01 Shopify refuses the Admin API calls of public apps made
with non-expiring tokens.

Two runners refreshing one shop at once keep one working pair: a refresh locks the connection's row, reads it
again, and does nothing when another runner renewed it meanwhile. A refresh whose answer is lost (a crash before
the commit) is safe as well: Shopify keeps the refresh token used valid until its replacement is first used, so
the pair still stored refreshes again. A refresh Shopify refuses disconnects the shop, and the incident says how
to connect it again (health.alerts.connections.rules).
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

from brands.models import PlatformConnection

from ..apis.errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable
from ..apis.http import check_url, platform_client, shopify_origin
from ..apis.shopify import ShopifyAdmin
from .connections import disconnect

logger = logging.getLogger(__name__)

# Shopify's advice: refresh a few minutes ahead, so that no call (a sync's page, ~200 s a run) meets the expiry.
REFRESH_MARGIN = timedelta(minutes=5)
# The token endpoint is called while the connection's row is locked: within the database's statement_timeout
# (DB_STATEMENT_TIMEOUT_MS, 5 s), which bounds another runner's wait for that lock.
TOKEN_TIMEOUT = (
    4.0  # seconds, the whole call: under the database's 5 s statement timeout while the row is locked
)
# The token endpoint's exchange of a non-expiring offline token for an expiring one (Shopify's migration).
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
OFFLINE_TOKEN = "urn:shopify:params:oauth:token-type:offline-access-token"
# How a refused refresh's disconnection begins: the incident tells it from an uninstall (is_refresh_refusal).
REFUSED = "Shopify refused to renew the service's access to the shop"


class TokenRefused(PlatformAPIError):
    """The token endpoint refused the grant (a code used, a refresh token expired or revoked): only the shop's
    administrator can give the service a new pair, by connecting the shop again."""


@dataclass(frozen=True)
class TokenPair:
    """What the token endpoint answered. No expiry: a non-expiring token (it has no refresh token either)."""

    access_token: str
    expires_at: datetime | None = None
    refresh_token: str = ""
    refresh_expires_at: datetime | None = None
    scope: str = ""

    def keep(self, connection: PlatformConnection) -> None:
        """Set the four on the connection together (saved by the caller, in its transaction)."""
        connection.set_credential(
            self.access_token,
            expires_at=self.expires_at,
            refresh_token=self.refresh_token,
            refresh_expires_at=self.refresh_expires_at,
        )


KEPT_FIELDS = ["credential", "credential_expires_at", "refresh_token", "refresh_token_expires_at"]


def is_refresh_refusal(reason: str) -> bool:
    """Whether a connection's disconnect reason is a refused refresh (not an uninstall or a revoked token)."""
    return (reason or "").startswith(REFUSED)


def refusal_detail(reason: str) -> str:
    """What Shopify said when it refused the refresh, from the disconnect reason."""
    return (reason or "").removeprefix(REFUSED).lstrip(": ").strip()


def exchange_code(*, shop: str, code: str, now: datetime) -> TokenPair:
    """The expiring offline pair the OAuth callback's `code` is worth (`expiring=1`)."""
    return _ask(shop, {"code": code, "expiring": "1"}, now=now)


def _ask(shop: str, grant: dict, *, now: datetime) -> TokenPair:
    """POST `grant` with the app's credentials to the shop's token endpoint; the pair it answers. TokenRefused
    when Shopify refuses it, PlatformUnavailable when it cannot answer."""
    url = check_url(f"{shopify_origin(shop)}/admin/oauth/access_token")
    body = {"client_id": settings.SHOPIFY_CLIENT_ID, "client_secret": settings.SHOPIFY_CLIENT_SECRET, **grant}
    try:
        with platform_client() as client:
            response = client.post(
                url, json=body, headers={"Accept": "application/json"}, timeout=TOKEN_TIMEOUT
            )
    except httpx.HTTPError as exc:
        raise PlatformUnavailable(f"Shopify's token endpoint did not answer ({type(exc).__name__})") from exc
    if response.status_code >= 500 or response.status_code == 429:
        raise PlatformUnavailable(f"Shopify's token endpoint answered {response.status_code}")
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    answer = answer if isinstance(answer, dict) else {}
    token = answer.get("access_token")
    if response.status_code != 200 or not isinstance(token, str) or not token:
        said = answer.get("error_description") or answer.get("error") or f"HTTP {response.status_code}"
        raise TokenRefused(f"Shopify refused the grant: {str(said)[:200]}")
    return TokenPair(
        access_token=token,
        expires_at=_after(now, answer.get("expires_in")),
        refresh_token=str(answer.get("refresh_token") or ""),
        refresh_expires_at=_after(now, answer.get("refresh_token_expires_in")),
        scope=str(answer.get("scope") or ""),
    )


def _after(now: datetime, seconds) -> datetime | None:
    return now + timedelta(seconds=int(seconds)) if isinstance(seconds, int | float) and seconds > 0 else None


def is_unmigrated(connection: PlatformConnection) -> bool:
    """A token of this app that never expires (connected before expiring tokens): exchanged once, lazily."""
    return (
        connection.platform == "shopify"
        and connection.connected_via == PlatformConnection.ConnectedVia.OAUTH
        and bool(connection.credential)
        and connection.credential_expires_at is None
    )


def is_due(connection: PlatformConnection, *, now: datetime) -> bool:
    """Whether the connection's access token expires within REFRESH_MARGIN (or never was exchanged)."""
    if connection.credential_expires_at is not None:
        return bool(connection.refresh_token) and connection.credential_expires_at - REFRESH_MARGIN <= now
    return is_unmigrated(connection)


def refresh(connection_id: int, *, now: datetime, refused: str | None = None) -> PlatformConnection:
    """Renew the connection's pair under its row's lock, when still due once the lock is held: after a 401 of
    `refused`, only when that is still the token kept (else another runner renewed it). The connection as kept.
    CredentialRevoked when Shopify refuses the refresh (the shop is then disconnected)."""
    try:
        return _refresh_locked(connection_id, now=now, refused=refused)
    except OperationalError as exc:  # the lock waited past statement_timeout: another runner is renewing it
        raise PlatformUnavailable("another runner is renewing the shop's token; try again") from exc


def _refresh_locked(connection_id: int, *, now: datetime, refused: str | None) -> PlatformConnection:
    refusal = None
    with transaction.atomic():
        connection = PlatformConnection.objects.select_for_update().get(pk=connection_id)
        if connection.disconnected_at is not None or not connection.credential:
            raise CredentialRevoked("the shop is disconnected: connect it again")
        still_due = (
            connection.credential_plain() == refused if refused is not None else is_due(connection, now=now)
        )
        if not still_due or not (connection.refresh_token or is_unmigrated(connection)):
            return connection
        try:
            pair = _renewed(connection, now=now)
        except TokenRefused as exc:
            if not connection.refresh_token:  # the exchange of an old token: it keeps working until 2027
                logger.warning("shopify token exchange refused", extra={"connection": connection.pk})
                return connection
            refusal = f"{REFUSED}: {exc}"
            disconnect(connection, reason=refusal, at=now)
        else:
            pair.keep(connection)
            # An UPDATE, not save(): a renewed pair changes nothing a brand's resolution caches (brands.signals).
            PlatformConnection.objects.filter(pk=connection.pk).update(
                **{name: getattr(connection, name) for name in KEPT_FIELDS}
            )
            return connection
    raise CredentialRevoked(refusal)


def _renewed(connection: PlatformConnection, *, now: datetime) -> TokenPair:
    if connection.refresh_token:
        grant = {"grant_type": "refresh_token", "refresh_token": connection.refresh_token_plain()}
    else:
        grant = {
            "grant_type": TOKEN_EXCHANGE,
            "subject_token": connection.credential_plain(),
            "subject_token_type": OFFLINE_TOKEN,
            "requested_token_type": OFFLINE_TOKEN,
            "expiring": "1",
        }
    return _ask(connection.shop_domain, grant, now=now)


class ConnectionToken:
    """A connection's Admin API token as ShopifyAdmin asks for it before each call: renewed when due, and once
    more (`renew`) after a 401. The connection given is kept up to date with what was renewed."""

    def __init__(self, connection: PlatformConnection, *, clock=timezone.now):
        self.connection = connection
        self.clock = clock
        self._exchange_tried = False  # an old token's exchange is tried once a client, not before every call

    def __call__(self) -> str:
        connection = self.connection
        now = self.clock()
        if is_due(connection, now=now) and not (is_unmigrated(connection) and self._exchange_tried):
            self._exchange_tried = self._exchange_tried or is_unmigrated(connection)
            try:
                self._adopt(refresh(connection.pk, now=now))
            except PlatformUnavailable:
                # Ahead of the expiry, the token still opens the shop: the next call asks again.
                if connection.credential_expires_at is not None and connection.credential_expires_at <= now:
                    raise
                logger.warning("shopify token refresh put off", extra={"connection": connection.pk})
        return self.connection.credential_plain()

    def renew(self, refused: str) -> str | None:
        """A new token after Shopify refused `refused` with a 401; None when there is none (the 401 stands)."""
        if not (self.connection.refresh_token or is_unmigrated(self.connection)):
            return None
        self._adopt(refresh(self.connection.pk, now=self.clock(), refused=refused))
        token = self.connection.credential_plain()
        return token if token and token != refused else None

    def _adopt(self, kept: PlatformConnection) -> None:
        for name in KEPT_FIELDS:
            setattr(self.connection, name, getattr(kept, name))


def admin_of(connection: PlatformConnection, *, clock=timezone.now, **options) -> ShopifyAdmin:
    """The shop's Admin API client with the connection's token, renewed as it needs."""
    token = ConnectionToken(connection, clock=clock)
    return ShopifyAdmin(connection.shop_domain, token, renew=token.renew, **options)
