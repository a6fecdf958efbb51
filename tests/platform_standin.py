"""The `standin` fixture: a World of the platforms' stand-in (attribution.management.demo.standin) that every platform
API call of the test reaches, in process. Calls to the service itself (a WooCommerce key handover POSTing its
keys to our callback) go to Django through its test handler, with CSRF checks on, as a real platform's would."""

import httpx
import pytest
from django.test.client import ClientHandler

from attribution.management.demo.standin.app import make_app
from attribution.management.demo.standin.world import World

STANDIN_HOST = "standin.test"
# SITE_URL while the stand-in runs: callbacks are https, as the platforms require.
SERVICE_ORIGIN = "https://testserver"
CLIENT_ID = "standin-app-client-id"
CLIENT_SECRET = "standin-app-client-secret"


def _service_app():
    handler = ClientHandler(enforce_csrf_checks=True)

    def app(environ, start_response):
        response = handler(environ)
        headers = list(response.items()) + [
            ("Set-Cookie", c.output(header="")) for c in response.cookies.values()
        ]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [response.content]

    return app


@pytest.fixture
def standin(settings, outbound_double):
    """The stand-in's World, with SHOPIFY_API_ORIGIN, PLATFORM_PLAIN_HTTP_HOSTS and the app's client id and
    secret set to reach it; a test adds the shops and sites it needs (world.add_shop, world.add_site)."""
    settings.SHOPIFY_API_ORIGIN = f"http://{STANDIN_HOST}/{{shop}}"
    settings.PLATFORM_PLAIN_HTTP_HOSTS = [STANDIN_HOST]
    settings.SHOPIFY_CLIENT_ID = CLIENT_ID
    settings.SHOPIFY_CLIENT_SECRET = CLIENT_SECRET
    settings.SITE_URL = SERVICE_ORIGIN
    world = World(
        origin=f"http://{STANDIN_HOST}", shopify_client_id=CLIENT_ID, shopify_client_secret=CLIENT_SECRET
    )
    outbound_double.serve_wsgi(STANDIN_HOST, make_app(world))
    outbound_double.fallback = httpx.WSGITransport(app=_service_app())
    return world
