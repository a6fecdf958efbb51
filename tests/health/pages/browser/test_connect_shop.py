"""Connect with Shopify and Connect with WooCommerce in a browser at 1280 and 400 px, against the platforms'
stand-in served on a port of this machine (as `make run` serves it): the consent pages approve at once, and the
browser comes back to the setup page, which says the shop is connected (WooCommerce's after the confirmation)."""

import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
from playwright.sync_api import expect

from attribution.management.demo.standin.app import make_app
from attribution.management.demo.standin.world import World
from brands.models import PlatformConnection

from .conftest import overflow

pytestmark = pytest.mark.django_db(transaction=True)


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        pass


@pytest.fixture
def served_standin(settings, live_server):
    world = World(
        origin="http://127.0.0.1:0",
        shopify_client_id="browser-app",
        shopify_client_secret="browser-app-secret",
        plain_callbacks=True,
    )
    server = make_server("127.0.0.1", 0, make_app(world), server_class=_Server, handler_class=_Quiet)
    world.origin = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.SHOPIFY_API_ORIGIN = f"{world.origin}/{{shop}}"
    # The stand-in, and live_server's callbacks: plain http to these host:port pairs only.
    settings.PLATFORM_PLAIN_HTTP_HOSTS = [
        f"127.0.0.1:{server.server_port}",
        live_server.url.split("//", 1)[1],
    ]
    settings.SHOPIFY_CLIENT_ID, settings.SHOPIFY_CLIENT_SECRET = "browser-app", "browser-app-secret"
    settings.SITE_URL = live_server.url
    yield world
    server.shutdown()
    server.server_close()


def test_connect_with_shopify(open_page, alice, prop, served_standin):
    served_standin.add_shop("acme.myshopify.com", currency="USD")
    page = open_page(alice, "/health/setup/", shot="setup-connect")

    page.get_by_label("Shopify shop").fill("acme.myshopify.com")
    page.get_by_role("button", name="Connect with Shopify").click()

    expect(page.get_by_text("acme.myshopify.com is connected")).to_be_visible()
    expect(page.locator("#connections")).to_contain_text("Shopify app OAuth")
    assert overflow(page) == 0
    connection = PlatformConnection.objects.get()
    assert connection.connected_via == "oauth" and connection.can_sync()
    open_page.save(page, "setup-connected")


def test_connect_with_woocommerce(open_page, alice, prop, served_standin):
    served_standin.add_site("acme")
    page = open_page(alice, "/health/setup/")

    page.get_by_label("WooCommerce site").fill(served_standin.site_url("acme"))
    page.get_by_role("button", name="Connect with WooCommerce").click()

    confirm = page.get_by_role("button", name="Confirm the connection")
    expect(confirm).to_be_visible()  # the keys wait for the confirmation of the session that started it
    expect(page.locator("#handover-site")).to_have_text(served_standin.site_url("acme"))
    assert overflow(page) == 0
    assert PlatformConnection.objects.count() == 0
    confirm.click()

    expect(page.get_by_text("its order webhooks were made")).to_be_visible()
    assert overflow(page) == 0
    assert PlatformConnection.objects.get().connected_via == "key_handover"
