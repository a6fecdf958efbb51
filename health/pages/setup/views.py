"""Setup page (/health/setup/): a brand's integration kit pre-filled with this service's address, a
"send a test order" button that goes through the same service and outcome log as the API, and the brand's
storefront-platform connections (each platform of attribution.platforms.registry): add one, paste its signing
secret (write-only), enable or disable it, with the steps each platform declares and a signed curl that sends a
test order to it.
"""

import json
import logging
import secrets
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.db import DatabaseError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods

from attribution.models import CreatorLink
from attribution.orders.confirmation import confirm_order
from attribution.outcomes import Result
from attribution.outcomes.endpoints import Endpoint
from attribution.platforms import registry
from brands import known_platforms
from brands.forms import PlatformConnectionForm
from brands.models import Brand, PlatformConnection
from health.log.writer import EventRecord, record
from health.pages.access import brand_page
from health.pages.events import queries as event_queries
from health.pages.outcomes import info_of
from health.pages.overview import queries
from health.pages.sync.forms import sync_now_context

logger = logging.getLogger(__name__)

LINKS_SHOWN = 20


class TestOrderForm(forms.Form):
    """Raw values on purpose: the service judges them as it judges a brand's snippet."""

    host = forms.ChoiceField(label="Sent from")
    order_amount = forms.CharField(label="Amount", initial="10.00", max_length=32)
    currency = forms.CharField(label="Currency", initial="USD", max_length=8)
    code = forms.CharField(label="Discount code", required=False, max_length=100)

    def __init__(self, *args, hosts: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["host"].choices = [(h, h) for h in hosts]


class ConnectionForm(PlatformConnectionForm):
    """A connection of the page's brand, to its own properties; a shop the brand already has is updated."""

    class Meta(PlatformConnectionForm.Meta):
        fields = [
            "platform",
            "shop_domain",
            "property",
            "signing_secret",
            "amount_counted",
            "order_id_source",
        ]

    def __init__(self, *args, brand: Brand, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.brand = brand
        self.fields["property"].queryset = brand.properties.order_by("host")
        self.fields["property"].empty_label = None
        self.fields["shop_domain"].widget.attrs["placeholder"] = "name.myshopify.com"
        self.fields["amount_counted"].label = "Order value counted"  # not "Amount": the test order's field is


def _connection_form(request, brand: Brand) -> ConnectionForm:
    """Bound to the brand's connection of the posted shop when it has one (a new secret, other options)."""
    existing = brand.platform_connections.filter(
        platform=request.POST.get("platform", ""),
        shop_domain=known_platforms.shop_key(
            request.POST.get("platform", ""), request.POST.get("shop_domain", "")
        ),
    ).first()
    form = ConnectionForm(request.POST, brand=brand, instance=existing)
    if existing is None:
        # Anyone can type any shop's domain here: a new connection waits for an account manager's approval.
        form.instance.approved_at = None
    return form


def _toggle_connection(request, brand: Brand) -> str:
    connection = brand.platform_connections.filter(pk=request.POST.get("connection", "0") or 0).first()
    if connection is None:
        return "No such connection."
    connection.is_enabled = request.POST.get("enabled") == "1"
    connection.save(update_fields=["is_enabled"])
    return f"{connection} {'enabled' if connection.is_enabled else 'disabled'}."


def connections_of(request, brand: Brand) -> list[dict]:
    """The brand's connections as the page shows them: never a secret, only whether one is kept."""
    shown = []
    for connection in brand.platform_connections.select_related("property").order_by(
        "platform", "shop_domain"
    ):
        shown.append(
            {
                "connection": connection,
                "webhook_url": request.build_absolute_uri(reverse(f"platforms:{connection.platform}")),
                "last_delivery": queries.last_delivery(connection),
                "curl": signed_test_curl(request, connection),
                # HTML its platform's module declares (code, not anything typed in).
                "test_note": mark_safe(registry.platform_named(connection.platform).test_note),  # noqa: S308
            }
        )
    return shown


def platform_steps(request) -> list[dict]:
    """Each registered platform's step-by-step text (attribution.platforms.platform.Platform, `setup_steps`), its
    receiver's address filled in."""
    shown = []
    for platform in registry.platforms():
        url = request.build_absolute_uri(reverse(f"platforms:{platform.name}"))
        steps = [format_html(step, webhook_url=url) for step in platform.setup_steps]
        shown.append({"name": platform.name, "title": platform.title, "steps": steps})
    return shown


def either(titles: list[str]) -> str:
    """The titles as a sentence says them: "Shopify or WooCommerce", "Shopify, WooCommerce or Tinyshop"."""
    return " or ".join([", ".join(titles[:-1]), titles[-1]]) if len(titles) > 1 else "".join(titles)


def signed_test_curl(request, connection: PlatformConnection) -> str:
    """A shell snippet that signs the connection's platform's test order (attribution.platforms.platform.Platform,
    `test_request`) with the secret the brand pastes into it, and sends it to this connection."""
    url = request.build_absolute_uri(reverse(f"platforms:{connection.platform}"))
    platform = registry.platform_named(connection.platform)
    test = platform.test_request(connection)
    lines = [
        "SECRET='PASTE_THE_SIGNING_SECRET'  # as the platform shows it; this page never shows it back",
        "RUN=$(date +%s)",
        f"BODY='{test.body}'",
        f"SIG=$({platform.signature_shell})",
        f"curl -sS -w '\\n' -X POST '{url}' \\",
        *(f"  -H '{header}' \\" for header in test.headers),
        *(f"  -H {header} \\" for header in test.signed),
        '  --data-binary "$BODY"',
    ]
    return "\n".join(lines)


def send_test_order(
    *, brand: Brand, host: str, order_amount: str, currency: str, code: str, request_id: str
) -> tuple[Result, int | None]:
    """A `test: true` order confirmation from one of the brand's properties, judged and logged as the API would.

    Returns the service's result and the id of its outcome log row (None if the log write failed).
    """
    received_at = timezone.now()
    payload = {
        "orderId": f"setup-test-{received_at:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}",
        "orderAmount": order_amount,
        "currency": currency,
        "page_url": f"https://{host}/setup-test",
        "test": True,
    }
    if code.strip():
        payload["code"] = code
    result = confirm_order(payload=payload, received_at=received_at)
    if result.brand_id is None:
        result.brand_id = brand.pk  # the host is the brand's own property; keep the row in its log
    event = EventRecord.of(
        result,
        endpoint=Endpoint.ORDER_CONFIRMATION,
        received_at=received_at,
        request_id=request_id,
        body=json.dumps(payload),
    )
    try:
        return result, record(event)
    except DatabaseError:
        logger.exception("outcome log write failed", extra={"request_id": request_id})
        return result, None


def _absolute_static(request, path: str) -> str:
    """The unhashed address of a static file: brands paste it once, so it must survive deploys."""
    static = settings.STATIC_URL
    if static.startswith(("http://", "https://", "//")):
        return request.build_absolute_uri(static + path)
    return request.build_absolute_uri("/" + static.lstrip("/") + path)


def _form_unbound(brand: Brand, hosts: list[str]) -> TestOrderForm:
    primary = brand.primary_property()
    return TestOrderForm(initial={"host": primary.host if primary else None}, hosts=hosts)


def _form(request, brand: Brand, hosts: list[str]) -> TestOrderForm:
    """The test order form: as posted; after a send, with the values just sent (they ride along in the
    redirect's query string, so a second try needs no retyping); otherwise from the primary property."""
    if request.method == "POST":
        return TestOrderForm(request.POST, hosts=hosts)
    primary = brand.primary_property()
    initial = {"host": primary.host if primary else None}
    if "sent" in request.GET:
        sent = TestOrderForm(request.GET, hosts=hosts)
        sent.is_valid()  # a value edited away in the address bar just keeps its default
        initial |= {name: value for name, value in sent.cleaned_data.items() if value not in (None, "")}
    return TestOrderForm(initial=initial, hosts=hosts)


@require_http_methods(["GET", "HEAD", "POST"])
@brand_page
def setup_page(request, chosen):
    brand = chosen.brand
    hosts = list(brand.properties.order_by("host").values_list("host", flat=True))
    form = _form(request, brand, hosts) if request.POST.get("form", "") == "" else _form_unbound(brand, hosts)
    here = f"{reverse('health:setup')}?{urlencode({'brand': brand.pk})}"

    connection_form = ConnectionForm(brand=brand)
    kind = request.POST.get("form", "") if request.method == "POST" else ""
    if kind == "connection":
        connection_form = _connection_form(request, brand)
        if connection_form.is_valid():
            connection = connection_form.save()
            waits = (
                " It waits for your account manager's approval and receives nothing until then."
                if connection.is_pending()
                else ""
            )
            messages.success(
                request, f"{connection} saved. Its secret is kept encrypted and never shown again.{waits}"
            )
            return redirect(f"{here}#platforms")
    elif kind == "toggle":
        messages.info(request, _toggle_connection(request, brand))
        return redirect(f"{here}#platforms")
    elif request.method == "POST" and form.is_valid():
        result, event_id = send_test_order(
            brand=brand, request_id=getattr(request, "request_id", ""), **form.cleaned_data
        )
        if event_id is None:
            messages.error(
                request, f"Test order sent ({result.outcome}), but the outcome log could not be written."
            )
            return redirect(here)
        return redirect(f"{here}&{urlencode({'sent': event_id, **form.cleaned_data})}#test-result")

    sent = None
    if request.GET.get("sent", "").isdigit():
        sent = event_queries.event([brand], pk=int(request.GET["sent"]))

    base_url = request.build_absolute_uri("/")
    click_js = _absolute_static(request, "attribution/sms-click.js")
    order_js = _absolute_static(request, "attribution/sms-order.js")
    links = (
        CreatorLink.objects.filter(brand=brand, is_active=True)
        .select_related("creator", "discount_code")
        .order_by("creator__name", "code")[:LINKS_SHOWN]
    )
    context = {
        **chosen.context,
        "form": form,
        "hosts": hosts,
        "base_url": base_url,
        "click_js": click_js,
        "order_js": order_js,
        # sms-order.js finds the endpoint from its own address unless static files live elsewhere.
        "needs_endpoint": not order_js.startswith(base_url),
        "endpoint": f"{base_url}api/order_confirmation",
        "links": [(link, f"{base_url}l/{link.code}") for link in links],
        "sent": sent,
        "sent_info": info_of(sent.outcome, sent.endpoint) if sent else None,
        "connections": connections_of(request, brand),
        "connection_form": connection_form,
        "handed_off": brand.storefront_handles_orders
        or brand.platform_connections.filter(is_enabled=True, approved_at__isnull=False).exists(),
        "platforms": platform_steps(request),
        "platform_titles": either([platform.title for platform in registry.platforms()]),
        **sync_now_context(brand),  # Sync now, and the link to the sync history (health.pages.sync)
    }
    return render(request, "health/setup.html", context)
