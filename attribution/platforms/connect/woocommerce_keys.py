"""WooCommerce's key handover (wc-auth): the address that asks the site's administrator to hand a REST key pair
to the service, the opaque `user_id` naming the handover kept here (brand, property, site, scope), and the
callback's checks: the handover is taken once, the keys read the site's orders, the site's /wp-json/ `home` is
the claimed site. The service then makes its own order webhooks with their own secret, when it asked to write.
The keys wait, sealed, on the handover until the brand user who started it confirms it on the return page:
only then is the connection made (docs/threat-model.md, "Connecting a shop" and "Round six").
"""

import json
import secrets
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from attribution.outcomes import say
from brands.hosts import normalize_host, site_key
from brands.models import Brand, KeyHandover, PlatformConnection, Property

from ..apis.errors import PlatformAPIError
from ..apis.http import check_url
from ..apis.woocommerce import WooCommerceREST, site_origin
from .connections import ConnectRefused, Proved, keep_proved
from .site_check import checking, no_retry, said

HANDOVER_SECONDS = 60 * 60  # an administrator may take a while to approve; the handover is then refused
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
    except PlatformAPIError as exc:
        if parts.scheme != "https":
            return say("connect.site_not_https")
        return say("connect.site_refused", problem=exc)
    return ""


def same_site(a: str, b: str) -> bool:
    """Whether two addresses name one site: scheme, host (normalized) and path, a trailing slash aside."""
    first, second = urlsplit(a.strip()), urlsplit(b.strip())
    return (
        first.scheme == second.scheme
        and normalize_host(first.netloc) == normalize_host(second.netloc)
        and first.path.rstrip("/") == second.path.rstrip("/")
    )


def start_handover(*, prop: Property, site_url: str, scope: str) -> KeyHandover:
    """A new handover of the site's keys for the property's brand; its opaque id is the `user_id` the site
    carries to the callback and back to the return page."""
    return KeyHandover.objects.create(
        brand_id=prop.brand_id, property=prop, site_url=site_origin(site_url), scope=scope
    )


def _fresh(now) -> dict:
    return {"created_at__gt": now - timedelta(seconds=HANDOVER_SECONDS)}


def _take(handover_id: str) -> KeyHandover:
    """The handover `handover_id` names, taken for this callback (one use); ConnectRefused otherwise."""
    now = timezone.now()
    taken = KeyHandover.objects.filter(handover_id=handover_id, called_at__isnull=True, **_fresh(now)).update(
        called_at=now
    )
    if not taken:
        raise ConnectRefused(say("connect.handover_unknown"))
    return KeyHandover.objects.select_related("property__brand").get(handover_id=handover_id)


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


def accept_keys(body: dict) -> KeyHandover:
    """Check the keys WooCommerce POSTed and keep them on their handover, to wait for the confirmation;
    ConnectRefused (nothing kept) otherwise. The rights are the ones the service asked for, whatever the body
    says."""
    fields = ("user_id", "consumer_key", "consumer_secret", "key_permissions")
    if not isinstance(body, dict) or any(
        not isinstance(body.get(name), str) or not body[name] for name in fields
    ):
        raise ConnectRefused(say("connect.keys_expected", fields=", ".join(fields)))
    handover = _take(body["user_id"])
    site, scope = handover.site_url, handover.scope
    if body["key_permissions"] != scope:
        raise ConnectRefused(say("connect.keys_rights", scope=scope, given=body["key_permissions"][:20]))
    woo = WooCommerceREST(site, body["consumer_key"], body["consumer_secret"], sleep=no_retry)
    with checking():  # one deadline over every call to the site, each answer capped (site_check)
        secret, info = _check_keys(woo, site, scope)
    handover.keep_keys(
        credential=json.dumps(
            {"consumer_key": body["consumer_key"], "consumer_secret": body["consumer_secret"]}
        ),
        secret=secret,
        site_timezone=str(info.get("timezone_string") or ""),
    )
    handover.save(update_fields=["credential", "secret", "site_timezone"])
    return handover


def _check_keys(woo: WooCommerceREST, site: str, scope: str) -> tuple[str, dict]:
    """The keys read the site's orders, the site is the one named, and (read_write) its webhooks are made with
    a new signing secret: that secret ("" for read keys) and the site's index; ConnectRefused otherwise."""
    try:
        woo.get("/wp-json/wc/v3/orders", {"per_page": 1})
        info = woo.site_info()
    except PlatformAPIError as exc:
        raise ConnectRefused(say("connect.keys_unread", problem=said(exc))) from exc
    home = str(info.get("home") or "")
    if not same_site(home, site):
        raise ConnectRefused(say("connect.other_site", home=home or "no address", site=site))
    secret = secrets.token_urlsafe(32) if scope == "read_write" else ""
    if secret:
        # If the webhooks cannot be made, nothing is kept and the callback fails, so WooCommerce deletes the
        # keys it could not hand over and the administrator can start again.
        try:
            make_webhooks(woo, secret)
        except PlatformAPIError as exc:
            raise ConnectRefused(say("connect.webhooks_refused", problem=said(exc))) from exc
    return secret, info


def waiting(*, brand: Brand, handover_id: str) -> KeyHandover | None:
    """The brand's handover `handover_id` whose checked keys wait for a confirmation; None otherwise."""
    return (
        KeyHandover.objects.filter(
            brand=brand, handover_id=handover_id, confirmed_at__isnull=True, **_fresh(timezone.now())
        )
        .exclude(credential="")
        .first()
    )


def confirm(*, brand: Brand, handover_id: str) -> PlatformConnection:
    """The connection the waiting handover's keys make, active at once (the brand user confirmed it); one use.
    ConnectRefused when nothing waits."""
    with transaction.atomic():
        handover = waiting(brand=brand, handover_id=handover_id)
        confirmed = handover is not None and KeyHandover.objects.filter(
            pk=handover.pk, confirmed_at__isnull=True
        ).update(confirmed_at=timezone.now(), credential="", secret="")
        if not confirmed:
            raise ConnectRefused(say("connect.nothing_waiting"))
        proved = Proved(
            platform="woocommerce",
            shop_domain=site_key(handover.site_url),
            via=PlatformConnection.ConnectedVia.KEY_HANDOVER,
            credential=handover.credential_plain(),
            scopes=[handover.scope],
            timezone=handover.site_timezone,
            site_url=handover.site_url,
        )
        return keep_proved(prop=handover.property, proved=proved, secret=handover.secret_plain())


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
