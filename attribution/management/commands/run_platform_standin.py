"""Serve the platforms' stand-in (attribution.platforms.standin) with the demo's shops, for `make run`. It signs its
redirects and webhooks with the configured SHOPIFY_CLIENT_SECRET, so it refuses to start where that secret may be
a real app's: with DEBUG off (docs/threat-model.md, "Round six", finding 11)."""

from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from attribution.platforms.standin.app import make_app
from attribution.platforms.standin.demo import demo_world


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a key handover's callback waits on the service, which may call back here


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002  (wsgiref's name)
        pass


class Command(BaseCommand):
    help = "Serve a stand-in of Shopify's and WooCommerce's APIs holding the demo's shops, until stopped."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=9100)
        parser.add_argument("--verbose-calls", action="store_true", help="print every call served")

    def handle(self, *args, host, port, verbose_calls, **options):
        if not settings.DEBUG:
            raise CommandError(
                "The stand-in signs with SHOPIFY_CLIENT_SECRET and must not run beside a production service: "
                "it starts only with DEBUG on (make run)."
            )
        origin = f"http://{host}:{port}"
        world = demo_world(
            origin=origin,
            shopify_client_id=settings.SHOPIFY_CLIENT_ID,
            shopify_client_secret=settings.SHOPIFY_CLIENT_SECRET,
        )
        handler = WSGIRequestHandler if verbose_calls else _QuietHandler
        server = make_server(
            host, port, make_app(world), server_class=_ThreadingServer, handler_class=handler
        )
        shops = ", ".join(f"{origin}/{domain}" for domain in world.shops)
        sites = ", ".join(world.site_url(slug) for slug in world.sites)
        self.stdout.write(
            f"Platforms' stand-in at {origin}: Shopify shops {shops}; WooCommerce sites {sites}."
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
        self.stdout.write("Platforms' stand-in stopped.")
