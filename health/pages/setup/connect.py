"""Connecting a shop from the setup page with its platform's consent (docs/integration.md, "Connecting a shop"):
"Connect with Shopify" (OAuth: the state is bound to this session, one use, ten minutes) and "Connect with
WooCommerce" (the key handover: its signed user_id names a nonce of this session). The platform's part is
attribution.platforms.connect's; these views parse, call it and reply."""

import secrets
import time
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from attribution.platforms.connect import shopify_oauth, woocommerce_keys
from attribution.platforms.connect.connections import ConnectRefused
from brands.hosts import normalize_host
from brands.models import PlatformConnection
from health.pages.access import brand_page, visible_brands

OAUTH_SESSION = "shopify_oauth_states"
HANDOVER_SESSION = "woocommerce_handovers"
STATE_SECONDS = 10 * 60  # the consent takes a minute; an older state is stale
KEPT_STATES = 5  # a few tabs at once; the oldest is dropped beyond
clock = time.time  # the tests move it on, never sleep


def _setup(brand_id) -> str:
    return f"{reverse('health:setup')}?{urlencode({'brand': brand_id})}#platforms"


def _remember(request, key: str, token: str, value: dict) -> None:
    now = clock()
    kept = {t: v for t, v in request.session.get(key, {}).items() if now - v["at"] < STATE_SECONDS}
    kept[token] = {**value, "at": now}
    request.session[key] = dict(sorted(kept.items(), key=lambda item: item[1]["at"])[-KEPT_STATES:])


def _take(request, key: str, token: str) -> dict | None:
    """The session's pending value for `token`, removed (one use); None when absent or stale."""
    kept = request.session.get(key, {})
    value = kept.pop(token, None) if isinstance(token, str) else None
    request.session[key] = kept
    if value is None or clock() - value["at"] >= STATE_SECONDS:
        return None
    return value


def _property(brand, host: str):
    return brand.properties.filter(host=normalize_host(host or "")).first() or brand.primary_property()


def _refused(request, text: str, brand_id=None, status: int = 400):
    return render(
        request,
        "health/connect_refused.html",
        {"reason": text, "setup_url": _setup(brand_id) if brand_id else reverse("health:setup")},
        status=status,
    )


@require_GET
@brand_page
def connect_continue(request, chosen):
    """Where the setup page's connect forms lead: a page of this service that moves on to the connect view, which
    redirects to the platform. The pages' Content-Security-Policy allows forms to this service only
    (form-action 'self'), and a browser applies it to a form's redirects too; a refresh is not a form's."""
    platform = request.GET.get("platform", "")
    if platform not in ("shopify", "woocommerce"):
        raise Http404("No such platform.")
    params = {key: request.GET.get(key, "") for key in request.GET if key != "platform"}
    params["brand"] = chosen.brand.pk
    target = f"{reverse(f'health:{platform}_connect')}?{urlencode(params)}"
    title = "Shopify" if platform == "shopify" else "WooCommerce"
    return render(request, "health/connect_continue.html", {**chosen.context, "next": target, "title": title})


@require_GET
@brand_page
def shopify_connect(request, chosen):
    brand = chosen.brand
    shop = (request.GET.get("shop") or "").strip().lower()
    problem = shopify_oauth.shop_problem(shop)
    if not settings.SHOPIFY_CLIENT_ID or not settings.SHOPIFY_CLIENT_SECRET:
        problem = "This service has no Shopify app configured (SHOPIFY_CLIENT_ID); ask your account manager."
    prop = _property(brand, request.GET.get("property", ""))
    if prop is None:
        problem = problem or "Register a property first: the shop's orders count for one."
    if problem:
        messages.error(request, problem)
        return redirect(_setup(brand.pk))
    state = secrets.token_urlsafe(32)
    _remember(request, OAUTH_SESSION, state, {"brand": brand.pk, "property": prop.pk, "shop": shop})
    redirect_uri = f"{settings.SITE_URL}{reverse('health:shopify_callback')}"
    return redirect(shopify_oauth.authorize_url(shop=shop, state=state, redirect_uri=redirect_uri))


@require_GET
@login_required
def shopify_callback(request):
    params = {key: request.GET.get(key, "") for key in request.GET}
    if not shopify_oauth.hmac_is_valid(params):
        return _refused(
            request, "This answer was not signed by Shopify for this app (its hmac does not match)."
        )
    pending = _take(request, OAUTH_SESSION, params.get("state", ""))
    if pending is None:
        return _refused(
            request, "This connection was not started in this session, or too long ago: start again."
        )
    shop = params.get("shop", "").lower()
    if shopify_oauth.shop_problem(shop) or shop != pending["shop"]:
        return _refused(
            request, f"Shopify answered for {shop or 'no shop'}, not {pending['shop']}.", pending["brand"]
        )
    brand = visible_brands(request.user).filter(pk=pending["brand"]).first()
    if brand is None:
        raise Http404("No such brand.")
    prop = brand.properties.filter(pk=pending["property"]).first()
    if prop is None:
        return _refused(request, "The property chosen for this shop no longer exists.", brand.pk)
    try:
        token = shopify_oauth.exchange_code(shop=shop, code=params.get("code", ""))
        connection, problems = shopify_oauth.connect(
            prop=prop, shop=shop, token=token, via=PlatformConnection.ConnectedVia.OAUTH
        )
    except ConnectRefused as refused:
        return _refused(request, str(refused), brand.pk)
    messages.success(
        request,
        f"{connection} is connected: Shopify proved the shop is yours. Its orders come by webhook, and the "
        "service reads them itself to catch any a webhook missed.",
    )
    for problem in problems:
        messages.warning(
            request,
            f"A webhook could not be subscribed ({problem}); the nightly sync still reads the orders.",
        )
    return redirect(_setup(brand.pk))


@require_GET
@brand_page
def woocommerce_connect(request, chosen):
    brand = chosen.brand
    site = (request.GET.get("site") or "").strip().rstrip("/")
    scope = request.GET.get("scope") or woocommerce_keys.SCOPES[0]
    problem = woocommerce_keys.site_problem(site)
    if scope not in woocommerce_keys.SCOPES:
        problem = problem or "Choose what the service may do: read and write, or read only."
    prop = _property(brand, request.GET.get("property", ""))
    if prop is None:
        problem = problem or "Register a property first: the site's orders count for one."
    if problem:
        messages.error(request, problem)
        return redirect(_setup(brand.pk))
    nonce = secrets.token_urlsafe(16)
    _remember(request, HANDOVER_SESSION, nonce, {"brand": brand.pk, "site": site})
    user_id = woocommerce_keys.handover_token(prop=prop, site_url=site, scope=scope, nonce=nonce)
    return_url = f"{settings.SITE_URL}{reverse('health:woocommerce_return')}?{urlencode({'brand': brand.pk})}"
    return redirect(
        woocommerce_keys.authorize_url(site_url=site, scope=scope, user_id=user_id, return_url=return_url)
    )


@require_GET
@brand_page
def woocommerce_return(request, chosen):
    """Where WooCommerce sends the administrator back (success=1 or 0, and our user_id): the keys came, or not,
    by the callback already; this only tells the person which."""
    brand = chosen.brand
    try:
        handover = woocommerce_keys.read_token(request.GET.get("user_id", ""))
    except ConnectRefused as refused:
        return _refused(request, str(refused), brand.pk)
    pending = _take(request, HANDOVER_SESSION, handover.get("n"))
    if pending is None or pending["brand"] != brand.pk or handover["b"] != brand.pk:
        return _refused(
            request, "This key handover was not started in this session, or too long ago.", brand.pk
        )
    host = normalize_host(handover["s"].split("//", 1)[-1].split("/", 1)[0])
    connection = brand.platform_connections.filter(
        platform="woocommerce",
        shop_domain=host,
        connected_via=PlatformConnection.ConnectedVia.KEY_HANDOVER,
        disconnected_at__isnull=True,
    ).first()
    if request.GET.get("success") == "1" and connection is not None:
        made = (
            "its order webhooks were made"
            if connection.secret
            else "make its order webhooks by hand (read-only keys)"
        )
        messages.success(request, f"{connection} is connected: its keys read the site's orders; {made}.")
    else:
        messages.error(
            request,
            f"WooCommerce did not hand the keys of {handover['s']} over (declined, or the check failed).",
        )
    return redirect(_setup(brand.pk))
