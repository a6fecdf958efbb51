"""Serve the platforms' stand-in (attribution.management.demo.standin) with the demo's shops, for `make run`. It starts
holding the credentials the service keeps for those shops, so a shop connected in an earlier `make run` stays
connected (the stand-in itself keeps nothing between runs). It signs its redirects and webhooks with the
configured SHOPIFY_CLIENT_SECRET, so it refuses to start where that secret may be a real app's: with DEBUG off
(docs/threat-model.md, "Round six", finding 11)."""

import json
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from attribution.management.demo.standin.app import make_app
from attribution.management.demo.standin.demo import demo_world
from attribution.management.demo.standin.world import World
from attribution.platforms.sync.webhooks import SHOPIFY_TOPICS, WOOCOMMERCE_TOPICS, receiver_url
from brands.models import PlatformConnection
from brands.sealing import UnreadableSecret


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
        kept = keep_service_credentials(world)
        handler = WSGIRequestHandler if verbose_calls else _QuietHandler
        server = make_server(
            host, port, make_app(world), server_class=_ThreadingServer, handler_class=handler
        )
        shops = ", ".join(f"{origin}/{domain}" for domain in world.shops)
        sites = ", ".join(world.site_url(slug) for slug in world.sites)
        self.stdout.write(
            f"Platforms' stand-in at {origin}: Shopify shops {shops}; WooCommerce sites {sites}; "
            f"{kept} connections of the service's kept."
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
        self.stdout.write("Platforms' stand-in stopped.")


def keep_service_credentials(world: World) -> int:
    """Let the service's credentials for the world's shops and sites open them again; how many were kept."""
    kept = 0
    sites = {world.site_url(slug).rstrip("/"): slug for slug in world.sites}
    for connection in PlatformConnection.objects.filter(disconnected_at__isnull=True).exclude(credential=""):
        try:
            credential = connection.credential_plain()
        except UnreadableSecret:  # sealed under keys this installation no longer has
            continue
        scopes = [s.strip() for s in connection.api_scopes.split(",") if s.strip()]
        if connection.platform == "shopify" and connection.shop_domain in world.shops:
            shop = world.shops[connection.shop_domain]
            shop.tokens[credential] = scopes
            if connection.refresh_token:  # an expiring pair: its hours and days as the service holds them
                _keep_pair(world, shop, connection, credential, scopes)
            # The subscriptions the service made when it connected the shop, so none reads as removed.
            shop.subscriptions = [_subscription(world, topic) for topic in SHOPIFY_TOPICS]
        elif connection.platform == "woocommerce" and connection.site_url.rstrip("/") in sites:
            site = world.sites[sites[connection.site_url.rstrip("/")]]
            keys = json.loads(credential)
            site.keys[keys["consumer_key"]] = {
                "secret": keys["consumer_secret"],
                "permissions": scopes[0] if scopes else "read",
                "key_id": world.next_id(),
                "user_id": "",
            }
            if connection.secret:  # read_write keys: the service made the site's order webhooks
                secret = next(connection.signing_secrets(now=timezone.now()))
                for topic in WOOCOMMERCE_TOPICS:
                    webhook_id = world.next_id()
                    site.webhooks.append(
                        {
                            "id": webhook_id,
                            "name": topic,
                            "status": "active",
                            "topic": topic,
                            "delivery_url": receiver_url("woocommerce"),
                        }
                    )
                    site.webhook_secrets[webhook_id] = secret
        else:
            continue
        kept += 1
    return kept


def _subscription(world: World, topic: str) -> dict:
    return {
        "id": f"gid://shopify/WebhookSubscription/{world.next_id()}",
        "topic": topic.upper().replace("/", "_"),
        "uri": receiver_url("shopify"),
        "format": "JSON",
        "createdAt": "2026-01-01T00:00:00Z",
        "updatedAt": "2026-01-01T00:00:00Z",
    }


def _keep_pair(world: World, shop, connection: PlatformConnection, credential: str, scopes: list) -> None:
    """The stand-in's clock is its own (monotonic): the pair's expiries are carried over as time left."""
    now, left = timezone.now(), world.clock()
    if connection.credential_expires_at:
        shop.token_expiry[credential] = left + (connection.credential_expires_at - now).total_seconds()
    refresh_until = connection.refresh_token_expires_at or now
    shop.refresh_tokens[connection.refresh_token_plain()] = {
        "scopes": scopes,
        "expires_at": left + (refresh_until - now).total_seconds(),
        "replaces": None,
    }
