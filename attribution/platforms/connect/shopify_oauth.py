"""Shopify's OAuth authorization-code grant, as the service's Shopify app: the address that asks the shop's
administrator for consent, the checks of the callback (its hmac in constant time, the shop's host), the code's
exchange for an expiring offline access token (connect.shopify_tokens keeps it renewed), and the proof that the token opens the claimed shop
(docs/threat-model.md, "Connecting a shop").

The session-bound `state` is the page's to issue and check (health.pages.setup.connect): this module only
knows the platform.
"""

import hashlib
import hmac
import logging
import re
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from brands.models import PlatformConnection, Property

from ..apis.errors import PlatformAPIError
from ..apis.http import shopify_origin
from ..apis.shopify import ShopifyAdmin, scopes_of, topic_name
from ..shopify import TOPICS as ORDER_TOPICS
from . import shopify_tokens
from .connections import ConnectRefused, Proved, keep_proved
from .shopify_tokens import TokenPair

logger = logging.getLogger(__name__)

# name.myshopify.com: Shopify's own host for every shop (letters, digits and hyphens, then the suffix). The
# `shop` of a callback is checked against it before anything is sent there.
SHOP_HOST = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$")
UNINSTALLED = "app/uninstalled"


def shop_problem(shop: str) -> str:
    """Why `shop` is not a shop's myshopify.com host ("" when it is)."""
    if SHOP_HOST.fullmatch(shop or ""):
        return ""
    return (
        "Enter your shop's myshopify.com address, such as name.myshopify.com (Shopify: Settings → Domains)."
    )


def scopes_asked() -> list[str]:
    """The scopes the app asks for: read_orders, and read_all_orders when configured (least privilege)."""
    return [scope.strip() for scope in settings.SHOPIFY_SCOPES.split(",") if scope.strip()]


def authorize_url(*, shop: str, state: str, redirect_uri: str) -> str:
    """The shop's consent page for this app."""
    query = urlencode(
        {
            "client_id": settings.SHOPIFY_CLIENT_ID,
            "scope": ",".join(scopes_asked()),
            "redirect_uri": redirect_uri,
            "state": state,
        }
    )
    return f"{shopify_origin(shop)}/admin/oauth/authorize?{query}"


def hmac_is_valid(params: dict[str, str]) -> bool:
    """Whether the callback's `hmac` is Shopify's: the hex HMAC-SHA256, under the app's client secret, of the
    other parameters sorted and joined as `key=value&...`; compared in constant time."""
    given = params.get("hmac", "")
    secret = settings.SHOPIFY_CLIENT_SECRET
    if not given or not secret:
        return False
    message = "&".join(
        f"{key}={value}" for key, value in sorted(params.items()) if key not in ("hmac", "signature")
    )
    expected = hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, given.lower())


def exchange_code(*, shop: str, code: str, now=None) -> TokenPair:
    """The expiring offline pair the callback's `code` is worth at the shop; ConnectRefused when Shopify
    refuses it or cannot be reached."""
    try:
        return shopify_tokens.exchange_code(shop=shop, code=code, now=now or timezone.now())
    except shopify_tokens.TokenRefused as exc:
        raise ConnectRefused(
            "Shopify refused the authorization (it may have been used already); connect again."
        ) from exc
    except PlatformAPIError as exc:
        raise ConnectRefused("Shopify could not be reached to finish the connection; try again.") from exc


def prove(*, shop: str, token: str, via: str, pair: TokenPair | None = None) -> Proved:
    """What the token opens: the shop it belongs to must be `shop`, or ConnectRefused (nothing is kept)."""
    try:
        identity = ShopifyAdmin(shop, token).identity()
    except PlatformAPIError as exc:
        raise ConnectRefused(f"Shopify refused the token: {exc}") from exc
    found = identity.get("shop") or {}
    domain = str(found.get("myshopifyDomain") or "").lower()
    if domain != shop:
        logger.warning("shopify token of another shop", extra={"claimed": shop, "answered": domain})
        raise ConnectRefused(
            f"This token opens {domain or 'an unknown shop'}, not {shop}: nothing was connected."
        )
    scopes = scopes_of(identity)
    if "read_orders" not in scopes and "read_all_orders" not in scopes:
        raise ConnectRefused("The token cannot read orders (it lacks the read_orders scope).")
    return Proved(
        platform="shopify",
        shop_domain=shop,
        via=via,
        credential=token,
        pair=pair,
        scopes=scopes,
        shop_id=str(found.get("id") or ""),
        currency=str(found.get("currencyCode") or ""),
        timezone=str(found.get("ianaTimezone") or ""),
    )


def connect(
    *, prop: Property, shop: str, token: str | TokenPair, via: str
) -> tuple[PlatformConnection, list[str]]:
    """Prove the token (a pasted one, or the pair OAuth gave), keep the connection, subscribe the webhooks (by
    OAuth only: a pasted custom app's token signs with its own secret). Returns the connection and what could
    not be subscribed."""
    pair = token if isinstance(token, TokenPair) else None
    plain = pair.access_token if pair else token
    connection = keep_proved(prop=prop, proved=prove(shop=shop, token=plain, via=via, pair=pair))
    problems = subscribe(connection) if via == PlatformConnection.ConnectedVia.OAUTH else []
    return connection, problems


def wanted_subscriptions() -> dict[str, str]:
    """Topic → the address its deliveries go to: the order topics the receiver follows, and app/uninstalled.
    The compliance topics are not subscribed: an app declares them in its configuration (docs/operations.md)."""
    orders = f"{settings.SITE_URL}{reverse('platforms:shopify')}"
    wanted = dict.fromkeys(sorted(ORDER_TOPICS), orders)
    wanted[UNINSTALLED] = f"{settings.SITE_URL}{reverse('platforms:shopify_app', args=['uninstalled'])}"
    return wanted


def subscribe(connection: PlatformConnection) -> list[str]:
    """Create the subscriptions the shop lacks (list, then only the absent topics); what failed, in words."""
    admin = shopify_tokens.admin_of(connection)
    try:
        held = {(topic_name(s["topic"]), s.get("uri")) for s in admin.webhook_subscriptions()}
    except PlatformAPIError as exc:
        return [f"the shop's webhook subscriptions could not be read: {exc}"]
    problems = []
    for topic, url in wanted_subscriptions().items():
        if (topic, url) in held:
            continue
        try:
            admin.subscribe(topic, url)
        except PlatformAPIError as exc:
            problems.append(f"{topic}: {exc}")
    return problems
