"""A Shopify shopper in a real headless Chromium (pytest-playwright, Debian's chromium): creator link → a
Shopify-like storefront page → the click in the cart's attributes → the shop's signed orders/create webhook
(with the cart's attributes as its note_attributes, as Shopify copies them) → the order tracked.

The service runs in pytest-django's live server; the storefront is a tiny server on another origin
(shop.brand.localhost) that sets window.Shopify as Shopify's own head script does and answers
/cart/update.js and /cart.js from a cart kept per `cart` cookie, as a Shopify storefront does.
"""

import json
import threading
import urllib.request
import uuid
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, signature
from attribution.models import Click, Commission, CreatorLink, Order
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.platforms.conftest import connect

SHOP = "acme-e2e.myshopify.com"
SECRET = "shpss_e2e_0123456789abcdef"

STOREFRONT = """<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>
<script>window.Shopify = {{shop: "{shop}", routes: {{root: "/"}}, currency: {{active: "USD"}}}};</script>
<script src="{service}/static/attribution/sms-click.js" async></script></head>
<body><h1>Linen shirt</h1></body></html>"""


@pytest.fixture
def storefront(live_server):
    """The shop: its product page, and a cart per `cart` cookie whose attributes /cart/update.js sets."""
    carts: dict[str, dict] = {}
    updates: list[dict] = []  # every /cart/update.js the page sent

    class Handler(BaseHTTPRequestHandler):
        def _cart_token(self):
            for part in (self.headers.get("Cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == "cart":
                    return value
            return None

        def _send(self, body: bytes, content_type: str, *, cookie: str | None = None):
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if cookie:
                self.send_header("Set-Cookie", f"cart={cookie}; Path=/; SameSite=Lax")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/products/linen-shirt":
                page = STOREFRONT.format(shop=SHOP, service=live_server.url).encode()
                self._send(page, "text/html; charset=utf-8")
            elif path == "/cart.js":
                cart = carts.get(self._cart_token() or "", {"attributes": {}})
                self._send(json.dumps(cart).encode(), "application/json")
            else:
                self.send_error(404)

        def do_POST(self):
            if self.path.split("?", 1)[0] != "/cart/update.js":
                self.send_error(404)
                return
            update = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            updates.append(update)
            token = self._cart_token() or uuid.uuid4().hex
            cart = carts.setdefault(token, {"token": token, "attributes": {}, "items": []})
            cart["attributes"].update(update.get("attributes", {}))
            self._send(json.dumps(cart).encode(), "application/json", cookie=token)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], updates
    server.shutdown()
    server.server_close()


def test_a_creator_link_s_click_reaches_the_shopify_order_by_the_cart_and_the_webhook_tracks_it(
    page, storefront, live_server
):
    port, updates = storefront
    brand = factories.BrandFactory(name="Acme", commission_rate_percent="10")
    prop = factories.PropertyFactory(brand=brand, host="shop.brand.localhost")
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SECRET)
    link = CreatorLink(
        brand=brand,
        creator=ana,
        code="ana-linen",
        destination_url=f"http://shop.brand.localhost:{port}/products/linen-shirt",
    )
    link.full_clean()
    link.save()

    page.goto(f"{live_server.url}/l/ana-linen")
    click = Click.objects.get()
    page.wait_for_function(
        "fetch('/cart.js').then(r => r.json()).then(c => c.attributes.sms_click_id) "
        "|| new Promise(r => setTimeout(() => r(false), 100))",
        timeout=10_000,
    )

    cart = page.evaluate("fetch('/cart.js').then(r => r.json())")
    assert cart["attributes"] == {"sms_click_id": click.click_id}
    assert updates == [{"attributes": {"sms_click_id": click.click_id}}]
    # Once per click and cart: the visit remembers which click it wrote into which cart.
    marker = page.evaluate("sessionStorage.getItem('sms_cart_click')")
    assert marker == f"{click.click_id}|{cart['token']}"

    # Checkout: Shopify copies the cart's attributes into the order's note_attributes and signs the webhook.
    order = shopify_order(
        order_id=6100000000001,
        note_attributes=list(cart["attributes"].items()),
        landing_site="/products/linen-shirt",
    )
    raw = body_of(order)
    request = urllib.request.Request(
        f"{live_server.url}/api/platforms/shopify",
        data=raw,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "X-Shopify-Topic": "orders/create",
            "X-Shopify-Shop-Domain": SHOP,
            "X-Shopify-Hmac-Sha256": signature(raw, SECRET),
            "X-Shopify-Webhook-Id": "e2e-webhook-1",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())

    assert answer == {
        "success": True,
        "outcome": "tracked",
        "message": "Order attributed; a commission was created.",
    }
    stored = Order.objects.get(order_id="6100000000001")
    assert (stored.outcome, stored.click, stored.creator, stored.via_platform) == (
        "tracked",
        click,
        ana,
        True,
    )
    assert Commission.objects.get(order=stored).amount == Decimal("5.99")
    event = OutcomeEvent.objects.get(order_id="6100000000001")
    assert (event.endpoint, event.outcome, event.brand_id) == ("shopify", "tracked", brand.id)
