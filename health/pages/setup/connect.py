"""Connecting a shop from the setup page with its platform's consent (docs/integration.md, "Connecting a shop"):
"Connect with Shopify" (OAuth: the state is bound to this session, one use, ten minutes) and "Connect with
WooCommerce" (the key handover: its opaque id is kept in this session, and only this session confirms the keys
on the return page). Both start with a POST of the setup page's form, CSRF-checked, so a link cannot start
one (docs/threat-model.md, "Round six"). The platform's part is attribution.platforms.connect's; these views
parse, call it and reply."""

import secrets
import time
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

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


def _onward(request, chosen, *, title: str, url: str):
    """The page that moves on to the platform. The pages' Content-Security-Policy allows forms to this service
    only (form-action 'self'), and a browser applies it to a form's redirects too; a refresh is not a form's."""
    return render(request, "health/connect_continue.html", {**chosen.context, "next": url, "title": title})


@require_POST
@brand_page
def shopify_connect(request, chosen):
    brand = chosen.brand
    shop = (request.POST.get("shop") or "").strip().lower()
    problem = shopify_oauth.shop_problem(shop)
    if not settings.SHOPIFY_CLIENT_ID or not settings.SHOPIFY_CLIENT_SECRET:
        problem = "This service has no Shopify app configured (SHOPIFY_CLIENT_ID); ask your account manager."
    prop = _property(brand, request.POST.get("property", ""))
    if prop is None:
        problem = problem or "Register a property first: the shop's orders count for one."
    if problem:
        messages.error(request, problem)
        return redirect(_setup(brand.pk))
    state = secrets.token_urlsafe(32)
    _remember(request, OAUTH_SESSION, state, {"brand": brand.pk, "property": prop.pk, "shop": shop})
    redirect_uri = f"{settings.SITE_URL}{reverse('health:shopify_callback')}"
    url = shopify_oauth.authorize_url(shop=shop, state=state, redirect_uri=redirect_uri)
    return _onward(request, chosen, title="Shopify", url=url)


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


@require_POST
@brand_page
def woocommerce_connect(request, chosen):
    brand = chosen.brand
    site = (request.POST.get("site") or "").strip().rstrip("/")
    scope = request.POST.get("scope") or woocommerce_keys.SCOPES[0]
    problem = woocommerce_keys.site_problem(site)
    if scope not in woocommerce_keys.SCOPES:
        problem = problem or "Choose what the service may do: read and write, or read only."
    prop = _property(brand, request.POST.get("property", ""))
    if prop is None:
        problem = problem or "Register a property first: the site's orders count for one."
    if problem:
        messages.error(request, problem)
        return redirect(_setup(brand.pk))
    handover = woocommerce_keys.start_handover(prop=prop, site_url=site, scope=scope)
    _remember(request, HANDOVER_SESSION, handover.handover_id, {"brand": brand.pk, "site": handover.site_url})
    return_url = f"{settings.SITE_URL}{reverse('health:woocommerce_return')}?{urlencode({'brand': brand.pk})}"
    url = woocommerce_keys.authorize_url(
        site_url=site, scope=scope, user_id=handover.handover_id, return_url=return_url
    )
    return _onward(request, chosen, title="WooCommerce", url=url)


def _started_here(request, brand, handover_id) -> dict | None:
    """This session's pending handover `handover_id` of `brand`, fresh; None otherwise."""
    pending = (
        request.session.get(HANDOVER_SESSION, {}).get(handover_id) if isinstance(handover_id, str) else None
    )
    if pending is None or pending["brand"] != brand.pk or clock() - pending["at"] >= STATE_SECONDS:
        return None
    return pending


@require_http_methods(["GET", "POST"])
@brand_page
def woocommerce_return(request, chosen):
    """Where WooCommerce sends the administrator back (success=1 or 0, and our user_id): the keys came, checked,
    by the callback already, or not. When they did, this session (the one that started the handover) confirms
    them with a POST; only then is the connection made."""
    brand = chosen.brand
    handover_id = request.POST.get("user_id") if request.method == "POST" else request.GET.get("user_id")
    pending = _started_here(request, brand, handover_id)
    if pending is None:
        return _refused(
            request, "This key handover was not started in this session, or too long ago.", brand.pk
        )
    if request.method == "POST":
        _take(request, HANDOVER_SESSION, handover_id)
        try:
            connection = woocommerce_keys.confirm(brand=brand, handover_id=handover_id)
        except ConnectRefused as refused:
            return _refused(request, str(refused), brand.pk)
        made = (
            "its order webhooks were made"
            if connection.secret
            else "make its order webhooks by hand (read-only keys)"
        )
        messages.success(request, f"{connection} is connected: its keys read the site's orders; {made}.")
        return redirect(_setup(brand.pk))
    handover = woocommerce_keys.waiting(brand=brand, handover_id=handover_id)
    if request.GET.get("success") != "1" or handover is None:
        _take(request, HANDOVER_SESSION, handover_id)
        messages.error(
            request,
            f"WooCommerce did not hand the keys of {pending['site']} over (declined, or the check failed).",
        )
        return redirect(_setup(brand.pk))
    return render(
        request,
        "health/connect_confirm.html",
        {**chosen.context, "handover": handover, "user_id": handover_id, "setup_url": _setup(brand.pk)},
    )
