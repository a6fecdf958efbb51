"""WooCommerce's key handover (wc-auth): the address that asks the site's administrator to hand a REST key pair
to the service, the signed `user_id` that binds the handover to the brand, the property and the site, and the
callback's checks: the keys read the site's orders, and the site's /wp-json/ `home` is the claimed site. Then
the service makes its own order webhooks with their own secret, when the keys may write
(docs/threat-model.md, "Connecting a shop").
"""

import json
import secrets
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse

from brands.hosts import normalize_host
from brands.models import PlatformConnection, Property

from ..apis.errors import PlatformAPIError
from ..apis.http import check_url
from ..apis.woocommerce import WooCommerceREST, site_origin
from .connections import ConnectRefused, Proved, keep_proved

SALT = "attribution.platforms.connect.woocommerce_keys"
HANDOVER_SECONDS = 60 * 60  # an administrator may take a while to approve; the token is then refused
SCOPES = ("read_write", "read")  # read_write (default): the service makes its webhooks; read: made by hand
WEBHOOK_TOPICS = ("order.created", "order.updated", "order.deleted")


def site_problem(site_url: str) -> str:
    """Why `site_url` is not a WooCommerce site's https address ("" when it is)."""
    try:
        parts = urlsplit(site_url.strip())
    except ValueError:
        return "Enter your site's address, such as https://shop.example."
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment:
        return "Enter your site's address, such as https://shop.example."
    try:
        check_url(site_url.strip())
    except PlatformAPIError:
        return "Your site must be served over https: WooCommerce hands keys over to an https site only."
    return ""


def same_site(a: str, b: str) -> bool:
    """Whether two addresses name one site: scheme, host (normalized) and path, a trailing slash aside."""
    first, second = urlsplit(a.strip()), urlsplit(b.strip())
    return (
        first.scheme == second.scheme
        and normalize_host(first.netloc) == normalize_host(second.netloc)
        and first.path.rstrip("/") == second.path.rstrip("/")
    )


def handover_token(*, prop: Property, site_url: str, scope: str, nonce: str) -> str:
    """The `user_id` WooCommerce carries to the callback: signed and timed, naming the brand, the property, the
    site and the scope asked; `nonce` is also kept in the asking session, whose return page checks it."""
    return signing.dumps(
        {"b": prop.brand_id, "p": prop.pk, "s": site_origin(site_url), "sc": scope, "n": nonce},
        salt=SALT,
        compress=True,
    )


def read_token(token: str) -> dict:
    """The handover a `user_id` names; ConnectRefused when it is not ours, or too old."""
    try:
        return signing.loads(token, salt=SALT, max_age=HANDOVER_SECONDS)
    except signing.SignatureExpired as exc:
        raise ConnectRefused("This key handover is too old; start it again from the setup page.") from exc
    except signing.BadSignature as exc:
        raise ConnectRefused("This key handover was not started by this service.") from exc


def authorize_url(*, site_url: str, scope: str, user_id: str, return_url: str) -> str:
    query = urlencode(
        {
            "app_name": settings.WOOCOMMERCE_APP_NAME,
            "scope": scope,
            "user_id": user_id,
            "return_url": return_url,
            "callback_url": f"{settings.SITE_URL}{reverse('platforms:woocommerce_keys')}",
        }
    )
    return f"{site_origin(site_url)}/wc-auth/v1/authorize?{query}"


def accept_keys(body: dict) -> PlatformConnection:
    """Check the keys WooCommerce POSTed and keep the connection; ConnectRefused (nothing kept) otherwise."""
    fields = ("user_id", "consumer_key", "consumer_secret", "key_permissions")
    if not isinstance(body, dict) or any(
        not isinstance(body.get(name), str) or not body[name] for name in fields
    ):
        raise ConnectRefused(f"Expected a JSON object with {', '.join(fields)}.")
    handover = read_token(body["user_id"])
    prop = Property.objects.select_related("brand").filter(pk=handover["p"], brand_id=handover["b"]).first()
    if prop is None:
        raise ConnectRefused("The property this handover was for no longer exists.")
    site, permissions = handover["s"], body["key_permissions"]
    woo = WooCommerceREST(site, body["consumer_key"], body["consumer_secret"])
    try:
        woo.get("/wp-json/wc/v3/orders", {"per_page": 1})
        info = woo.site_info()
    except PlatformAPIError as exc:
        raise ConnectRefused(f"The keys could not read the site's orders: {exc}") from exc
    home = str(info.get("home") or "")
    if not same_site(home, site):
        raise ConnectRefused(
            f"The site answers as {home or 'no address'}, not {site}: nothing was connected."
        )
    proved = Proved(
        platform="woocommerce",
        shop_domain=normalize_host(urlsplit(site).netloc),
        via=PlatformConnection.ConnectedVia.KEY_HANDOVER,
        credential=json.dumps(
            {"consumer_key": body["consumer_key"], "consumer_secret": body["consumer_secret"]}
        ),
        scopes=[permissions],
        timezone=str(info.get("timezone_string") or ""),
        site_url=site,
    )
    secret = secrets.token_urlsafe(32) if permissions in ("write", "read_write") else ""
    # One transaction: if the webhooks cannot be made, nothing is kept and the callback fails, so WooCommerce
    # deletes the keys it could not hand over and the administrator can start again.
    with transaction.atomic():
        connection = keep_proved(prop=prop, proved=proved, secret=secret)
        if secret:
            try:
                make_webhooks(woo, secret)
            except PlatformAPIError as exc:
                raise ConnectRefused(f"The site refused the service's webhooks: {exc}") from exc
    return connection


def make_webhooks(woo: WooCommerceREST, secret: str) -> None:
    """The service's order webhooks on the site, signed with `secret`: those it has already are re-pointed
    to the new secret and enabled, the others made."""
    delivery_url = f"{settings.SITE_URL}{reverse('platforms:woocommerce')}"
    ours = {w["topic"]: w for w in woo.webhooks() if w.get("delivery_url") == delivery_url}
    for topic in WEBHOOK_TOPICS:
        if topic in ours:
            woo.put(
                f"/wp-json/wc/v3/webhooks/{int(ours[topic]['id'])}", {"status": "active", "secret": secret}
            )
        else:
            woo.create_webhook(topic, delivery_url, secret)
