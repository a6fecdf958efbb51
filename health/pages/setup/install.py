"""An install that starts on Shopify's side (docs/integration.md, "Installing from Shopify"): the app's App URL.
A merchant who installs the app from an install link or the App Store, or opens it from her Shopify admin, lands
here with `shop`, `timestamp` and `hmac` (and `host`). The hmac is checked as the OAuth callback's is, the
timestamp must be recent; the verified shop waits in the session while she signs in, then she picks the brand
(when she may manage several) and goes on into the same OAuth flow as "Connect with Shopify" (health.pages.setup
.connect: the state bound to this session, one use)."""

import time
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from attribution.platforms.connect import shopify_oauth
from brands.models import PlatformConnection
from health.pages.access import no_brand_page, visible_brands

PENDING = "shopify_install"
TIMESTAMP_SECONDS = 5 * 60  # Shopify signs the link as it sends the merchant: an older one is a replay
PENDING_SECONDS = 15 * 60  # a sign-in in between
clock = time.time  # the tests move it on, never sleep


def _refused(request, reason: str):
    return render(request, "health/install_refused.html", {"reason": reason}, status=400)


def _verified_shop(request) -> tuple[str, str]:
    """The shop the query names, and "" when Shopify signed it; else ("", why not)."""
    params = {key: request.GET.get(key, "") for key in request.GET}
    if not shopify_oauth.hmac_is_valid(params):
        return "", "This link was not signed by Shopify for this app (its hmac does not match)."
    try:
        age = clock() - int(params.get("timestamp", ""))
    except ValueError:
        age = None
    if age is None or abs(age) > TIMESTAMP_SECONDS:
        return "", "This link from Shopify is too old. Open the app again from your Shopify admin."
    shop = params.get("shop", "").lower()
    if shopify_oauth.shop_problem(shop):
        return "", "Shopify's link names no myshopify.com shop."
    return shop, ""


@require_GET
def shopify_install(request):
    """Shopify's signed link, verified and kept; then the sign-in, the brand, and Connect with Shopify."""
    if "hmac" in request.GET:
        shop, problem = _verified_shop(request)
        if problem:
            return _refused(request, problem)
        request.session[PENDING] = {"shop": shop, "at": clock()}
        return redirect(
            reverse("health:shopify_install")
        )  # the signed query is not carried through a sign-in
    pending = request.session.get(PENDING)
    if not pending or clock() - pending["at"] > PENDING_SECONDS:
        return _refused(request, "Open the app from your Shopify admin (Apps) to connect your shop.")
    shop = pending["shop"]
    if not request.user.is_authenticated:
        messages.info(
            request,
            f"Sign in to connect {shop}. No account here yet? Your account manager creates it: ask them.",
        )
        return redirect_to_login(request.get_full_path())
    brands = list(visible_brands(request.user).only("id", "name").order_by("name", "id"))
    if not brands:
        return no_brand_page(request)
    del request.session[PENDING]  # one use: the connect view binds its own state to this session
    choices = _holding(shop, brands) or brands
    # Connect with Shopify starts with a CSRF-checked POST (a link cannot start it: docs/threat-model.md, round
    # six): the merchant presses Continue, once per brand she could mean, and the same OAuth flow goes on.
    return render(
        request,
        "health/shopify_install.html",
        {"shop": shop, "choices": [(b, _connect_url(b.pk)) for b in choices]},
    )


def _holding(shop: str, brands: list) -> list:
    """The one of `brands` that holds the shop already (connecting again renews its tokens there), or none."""
    held = (
        PlatformConnection.objects.filter(
            platform="shopify", shop_domain=shop, brand_id__in=[b.pk for b in brands]
        )
        .values_list("brand_id", flat=True)
        .first()
    )
    return [b for b in brands if b.pk == held]


def _connect_url(brand_id: int) -> str:
    return f"{reverse('health:shopify_connect')}?{urlencode({'brand': brand_id})}"
