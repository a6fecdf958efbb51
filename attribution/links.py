"""Creator links: GET /l/<code> records a Click and redirects the shopper to the brand's site with the
click id (and the link's discount code) in the query string, where sms-click.js stores them as cookies.
"""

import hashlib
import hmac
import logging
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote, unquote_plus, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from brands.resolution import resolve_host
from config.lib.clients import client_address

from .models import Click, CreatorLink

logger = logging.getLogger(__name__)

CLICK_ID_PARAM = "smsclickid"
# The name sms-click.js keeps the click id under: its cookie, and on a storefront the cart attribute (Shopify's
# note_attributes) or the order's meta key (WooCommerce) it writes; the platform receivers and the order books'
# readers look for it by this name.
CLICK_ID_NAME = "sms_click_id"
CODE_PARAM = "smscode"
_MAX_USER_AGENT = Click._meta.get_field("user_agent").max_length
_MAX_REFERRER = Click._meta.get_field("referrer").max_length


@dataclass(frozen=True)
class FollowedLink:
    """Where a link sends the shopper, and the click it recorded (None for a HEAD request)."""

    location: str
    click: Click | None


def hash_ip(ip: str) -> str:
    """HMAC-SHA-256 of the client IP keyed with SECRET_KEY: repeat clicks can be told apart, the IP never kept."""
    if not ip:
        return ""
    return hmac.new(settings.SECRET_KEY.encode(), ip.encode(), hashlib.sha256).hexdigest()


def with_click_params(destination: str, *, click_id: str | None, code: str | None) -> str:
    """The destination with smsclickid (and smscode) appended; its own query and fragment kept byte for byte.

    The existing query is not decoded and re-encoded (that would turn %20 into + or drop blank values),
    only stale smsclickid/smscode pairs are dropped so the shopper's site reads this click's values.
    """
    parts = urlsplit(destination)
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and unquote_plus(pair.split("=", 1)[0]) not in (CLICK_ID_PARAM, CODE_PARAM)
    ]
    added = {}
    if click_id:
        added[CLICK_ID_PARAM] = click_id
    if code:
        added[CODE_PARAM] = code
    if added:
        kept.append(urlencode(added, quote_via=quote))
    return urlunsplit(parts._replace(query="&".join(kept)))


def follow_link(
    *, code: str, clicked_at: datetime, user_agent: str, referrer: str, ip: str, record: bool = True
) -> FollowedLink | None:
    """Record a click on an active link of an active creator and brand; None when the link must 404.

    The property is resolved from the destination on every click, so a link whose host stopped being
    a property of its brand (or whose brand was deactivated) stops working instead of minting stray clicks.
    """
    link = (
        CreatorLink.objects.select_related("brand", "creator", "discount_code")
        .filter(code=code.strip().lower(), is_active=True, brand__is_active=True, creator__is_active=True)
        .first()
    )
    if link is None or link.creator.brand_id != link.brand_id:
        return None
    resolution = resolve_host(link.destination_url)
    if resolution.property_id is None or resolution.brand.id != link.brand_id:
        logger.warning(
            "creator link destination is not a property of its brand",
            extra={"link": link.pk, "brand_id": link.brand_id, "host": resolution.host},
        )
        return None
    discount = link.discount_code.code if link.discount_code is not None else None
    if not record:
        return FollowedLink(with_click_params(link.destination_url, click_id=None, code=discount), None)
    click = Click.objects.create(
        brand_id=link.brand_id,
        property_id=resolution.property_id,
        creator_id=link.creator_id,
        clicked_at=clicked_at,
        user_agent=user_agent[:_MAX_USER_AGENT],
        referrer=referrer[:_MAX_REFERRER],
        ip_hash=hash_ip(ip),
    )
    return FollowedLink(
        with_click_params(link.destination_url, click_id=click.click_id, code=discount), click
    )


def _client_ip(request) -> str:
    return client_address(request)


@require_safe
def follow(request, code):
    """GET /l/<code>: 302 to the destination with the click id, or a plain 404 page. HEAD records nothing."""
    followed = follow_link(
        code=code,
        clicked_at=timezone.now(),
        user_agent=request.headers.get("User-Agent", ""),
        referrer=request.headers.get("Referer", ""),
        ip=_client_ip(request),
        record=request.method == "GET",
    )
    if followed is None:
        response = render(request, "attribution/link_not_found.html", status=404)
    else:
        response = HttpResponseRedirect(followed.location)
    # Every visit must reach us to mint its own click; a cached redirect would reuse a click id.
    response["Cache-Control"] = "no-store"
    return response
