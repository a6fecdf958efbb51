"""The platforms' server-to-server calls about a connection (no session, so no CSRF; each is authenticated by
what it carries): the Shopify app's own webhooks, signed with the app's client secret (app/uninstalled and the
three compliance topics, one address each, so a signed body cannot be replayed as another topic), and
WooCommerce's key handover callback, bound by the opaque `user_id` of a handover the service keeps (one use,
rate-limited per address)."""

import json
import logging
import math

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import Http404, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from attribution.http import throttles
from attribution.outcomes import Outcome, envelope, say
from brands.hosts import normalize_host
from brands.models import PlatformConnection, PlatformPrivacyRequest
from config.lib.clients import client_address

from ..notice import body_digest
from ..receiver import json_answer, read_body
from ..shopify import SHOPIFY
from . import privacy, woocommerce_keys
from .connections import ConnectRefused, disconnect

logger = logging.getLogger(__name__)

BODY_LIMIT = 256 * 1024
# The address's last part → the topic delivered there (docs/operations.md lists the addresses to configure).
APP_TOPICS = {
    "uninstalled": "app/uninstalled",
    "customers-data-request": PlatformPrivacyRequest.Topic.DATA_REQUEST,
    "customers-redact": PlatformPrivacyRequest.Topic.CUSTOMER_REDACT,
    "shop-redact": PlatformPrivacyRequest.Topic.SHOP_REDACT,
}


def _answer(status: int, outcome: Outcome, text: str, **extra) -> HttpResponse:
    """The receiver's answer: the /api/ envelope, with its outcome."""
    return json_answer(envelope(success=status < 400, outcome=outcome, text=text, **extra), status)


def _posted(view):
    """POST only, answered as the receiver answers any other method; the body read by the receiver's stage."""

    def wrapper(request, *args, **kwargs):
        if request.method != "POST":
            return _answer(405, Outcome.METHOD_NOT_ALLOWED, say("connect.method"))
        return view(request, *args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = view.__name__, view.__doc__
    return wrapper


def _too_large() -> HttpResponse:
    return _answer(413, Outcome.INVALID_PARAMS, say("connect.too_large", limit=BODY_LIMIT // 1024))


@csrf_exempt  # Shopify's servers post here; the app's signature authenticates each delivery
@_posted
def shopify_app_webhook(request, kind: str):
    topic = APP_TOPICS.get(kind)
    if topic is None:
        raise Http404("No such topic.")
    body = read_body(request, limit=BODY_LIMIT)
    if body is None:
        return _too_large()
    given = request.headers.get("X-Shopify-Hmac-Sha256", "").strip()
    secret = settings.SHOPIFY_CLIENT_SECRET
    if not secret or not given or not SHOPIFY.signs(body, secret, given):
        answer = _answer(401, Outcome.INVALID_SIGNATURE, say("connect.no_app_signature"))
        answer["WWW-Authenticate"] = SHOPIFY.signature_scheme
        return answer
    if request.headers.get("X-Shopify-Topic", "") != topic:
        return _answer(400, Outcome.INVALID_PARAMS, say("connect.wrong_topic", topic=topic))
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    shop = normalize_host(request.headers.get("X-Shopify-Shop-Domain", "")) or ""
    named = (
        document.get("myshopify_domain" if kind == "uninstalled" else "shop_domain")
        if isinstance(document, dict)
        else None
    )
    if not shop or normalize_host(str(named or "")) != shop:
        return _answer(400, Outcome.INVALID_PARAMS, say("connect.not_the_shop"))
    connection = PlatformConnection.objects.filter(
        platform="shopify", shop_domain=shop, approved_at__isnull=False
    ).first()
    kept = PlatformPrivacyRequest(
        brand_id=connection.brand_id if connection else None,
        connection=connection,
        platform="shopify",
        shop_domain=shop,
        topic=topic,
        delivery_id=(request.headers.get("X-Shopify-Webhook-Id", "") or _digest(body))[:255],
        body_digest=_digest(body),
    )
    earlier = _earlier(kept, connection)
    if earlier is not None:
        text = (
            say("connect.retried")
            if earlier.delivery_id == kept.delivery_id
            else say("connect.repeated", at=f"{earlier.received_at:%Y-%m-%d %H:%M}")
        )
        return _answer(200, Outcome.REDELIVERY, text)
    if kind == "uninstalled":
        return _keep(kept, lambda: _uninstall(kept, connection, shop))
    customer = document.get("customer") if isinstance(document.get("customer"), dict) else {}
    orders = document.get("orders_to_redact") or document.get("orders_requested") or []
    kept.customer_id = str(customer.get("id") or "")[:64]
    kept.email_hash = privacy.email_hash_of(customer.get("email"))
    kept.orders = [str(order) for order in orders if isinstance(order, (int, str))][:1000]
    return _keep(kept, lambda: privacy.act(kept, connection))


def _earlier(kept: PlatformPrivacyRequest, connection) -> PlatformPrivacyRequest | None:
    """The request this one repeats (the same signed body, received before), when it must not act again: a
    captured body replayed under a new delivery id, perhaps after the shop was connected again. Only shop/redact
    of a shop disconnected again since acts again (Shopify sends it 48 hours after each uninstall)."""
    earlier = (
        PlatformPrivacyRequest.objects.filter(
            platform=kept.platform,
            shop_domain=kept.shop_domain,
            topic=kept.topic,
            body_digest=kept.body_digest,
        )
        .order_by("received_at")
        .first()
    )
    if earlier is None:
        return None
    again = (
        kept.topic == PlatformPrivacyRequest.Topic.SHOP_REDACT
        and earlier.delivery_id != kept.delivery_id
        and connection is not None
        and connection.disconnected_at is not None
        and connection.disconnected_at > earlier.received_at
    )
    return None if again else earlier


def _keep(kept: PlatformPrivacyRequest, act) -> HttpResponse:
    try:
        with transaction.atomic():
            act()
            kept.save(force_insert=True)
    except IntegrityError:  # a retry of a request already done, at the same moment
        return _answer(200, Outcome.REDELIVERY, say("connect.retried"))
    return _answer(200, Outcome.APP_REQUEST, kept.done, held=kept.held)


def _uninstall(kept: PlatformPrivacyRequest, connection: PlatformConnection | None, shop: str) -> None:
    if connection is None or connection.connected_via != PlatformConnection.ConnectedVia.OAUTH:
        kept.held, kept.done = {}, f"No connection of {shop} was made by this app: nothing to do."
        return
    when = timezone.now()
    reason = (
        f"The shop uninstalled the app on {when:%Y-%m-%d %H:%M} UTC; connect it again from the setup page."
    )
    kept.held = {"connection": connection.pk, "credential": connection.has_credential()}
    changed = disconnect(connection, reason=reason, at=when)
    kept.done = f"{shop} {'is now' if changed else 'was already'} disconnected."


def _digest(body: bytes) -> str:
    return f"sha256:{body_digest(body)}"


@csrf_exempt  # WooCommerce's server posts the keys here; the opaque user_id names a brand's handover
@_posted
def woocommerce_keys_callback(request):
    rate = settings.API_THROTTLE_RATES.get("key_handovers")
    allowed, wait, _ = (
        throttles.hit(f"key_handovers:{client_address(request)}", rate=rate) if rate else (True, 0, 0)
    )
    if not allowed:
        answer = _answer(429, Outcome.RATE_LIMITED, say("connect.too_many_handovers"))
        answer["Retry-After"] = str(max(1, math.ceil(wait)))
        return answer
    body = read_body(request, limit=BODY_LIMIT)
    if body is None:
        return _too_large()
    try:
        document = json.loads(body)
    except ValueError:
        return _answer(400, Outcome.INVALID_PARAMS, say("connect.not_json"))
    try:
        handover = woocommerce_keys.accept_keys(document)
    except ConnectRefused as refused:
        logger.info("woocommerce key handover refused: %s", refused)
        return _answer(400, Outcome.INVALID_PARAMS, str(refused))
    return _answer(200, Outcome.KEYS_RECEIVED, say("connect.keys_waiting", site=handover.site_url))
