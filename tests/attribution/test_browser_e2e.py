"""A shopper in a real headless Chromium (pytest-playwright, Debian's chromium): creator link → brand
landing page → thank-you page → tracked.

The service runs in pytest-django's live server (http://localhost:<port>); the brand's site is a
second tiny server on another origin, reached as www.brand.localhost and brand.localhost (Chromium
resolves every *.localhost name to the loopback address). The click cookie is set on the landing page
of www.brand.localhost and must be read on the apex's thank-you page, which posts the order across
origins (CORS) to the service.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from attribution.models import Click, Commission, CreatorLink, Order
from health.log.models import OutcomeEvent
from tests import factories

LANDING = """<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>
<script src="{service}/static/attribution/sms-click.js"></script></head>
<body><h1 id="reviews">Acme summer sale</h1></body></html>"""

THANK_YOU = """<!doctype html><html><head><meta charset="utf-8"><title>Thank you</title>
<script src="{service}/static/attribution/sms-click.js"></script>
<script src="{service}/static/attribution/sms-order.js"></script></head>
<body><h1>Thank you for your order</h1>
<script>
  window.cookiesBeforeOrder = document.cookie;
  smsOrderConfirmation({{orderId: "E2E-1042", orderAmount: 59.90, currency: "USD"}})
    .then(function (answer) {{ window.smsAnswer = answer; }},
          function (error) {{ window.smsAnswer = {{failed: String(error)}}; }});
</script></body></html>"""


@pytest.fixture
def brand_site(live_server):
    """The brand's storefront on another origin: /landing and /thank-you, both loading our scripts."""
    pages = {"/landing": LANDING, "/thank-you": THANK_YOU}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            template = pages.get(self.path.split("?", 1)[0])
            if template is None:
                self.send_error(404)
                return
            body = template.format(service=live_server.url).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _cookie(context, name):
    return next((c for c in context.cookies() if c["name"] == name), None)


def test_a_click_on_a_creator_link_makes_the_order_on_the_brand_site_tracked(
    context, page, brand_site, live_server
):
    port = brand_site
    brand = factories.BrandFactory(name="Acme", commission_rate_percent="10")
    prop = factories.PropertyFactory(brand=brand, host="brand.localhost")
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    code = factories.DiscountCodeFactory(brand=brand, creator=ana, code="ANA10")
    link = CreatorLink(
        brand=brand,
        creator=ana,
        code="ana-summer",
        destination_url=f"http://www.brand.localhost:{port}/landing?utm_source=ig&note=a%20b#reviews",
        discount_code=code,
    )
    link.full_clean()
    link.save()

    page.goto(f"{live_server.url}/l/ana-summer")

    click = Click.objects.get()
    assert (click.brand, click.property, click.creator) == (brand, prop, ana)
    # Landed, and sms-click.js took its parameters out of the address bar, leaving the brand's own.
    assert page.evaluate("location.href") == (
        f"http://www.brand.localhost:{port}/landing?utm_source=ig&note=a%20b#reviews"
    )
    stored = _cookie(context, "sms_click_id")
    assert stored is not None and stored["value"] == click.click_id
    # On the registrable domain, so the apex and other subdomains read it too.
    assert stored["domain"] == ".brand.localhost"
    assert (stored["path"], stored["sameSite"], stored["secure"]) == ("/", "Lax", False)
    assert 29 * 86400 < stored["expires"] - page.evaluate("Date.now() / 1000") <= 30 * 86400
    assert _cookie(context, "sms_code")["value"] == "ANA10"
    assert _cookie(context, "sms_click_time") is not None
    assert _cookie(context, "sms_domain_probe") is None

    page.goto(f"http://brand.localhost:{port}/thank-you")
    page.wait_for_function("window.smsAnswer")
    answer = page.evaluate("window.smsAnswer")

    assert f"sms_click_id={click.click_id}" in page.evaluate("window.cookiesBeforeOrder")
    assert answer["outcome"] == "tracked", answer
    assert answer["success"] is True
    order = Order.objects.get(brand=brand, order_id="E2E-1042")
    assert (order.outcome, order.click, order.creator, order.property) == ("tracked", click, ana, prop)
    assert order.page_host == "brand.localhost"
    assert Commission.objects.get(order=order).creator == ana
    event = OutcomeEvent.objects.get(order_id="E2E-1042")
    assert (event.outcome, event.brand_id, event.is_test) == ("tracked", brand.id, False)
    assert json.loads(event.request_body)["clickId"] == click.click_id
    assert json.loads(event.request_body)["page_url"] == f"http://brand.localhost:{port}/thank-you"
    # A 2xx answer clears the click, so a later order without a new click is not attributed again.
    page.wait_for_function("!document.cookie.includes('sms_click_id')")
    assert _cookie(context, "sms_click_id") is None
    assert _cookie(context, "sms_code") is None
