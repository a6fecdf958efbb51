"""A local webhook receiver for trying alerts: prints each delivery and whether its Standard Webhooks
signature verifies (docs/alerts.md). Never for production: it listens on 127.0.0.1 only."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

from django.core.management.base import BaseCommand
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from health.alerts.models import Channel


class Command(BaseCommand):
    help = "Listen on 127.0.0.1:PORT and print every webhook delivery, verified with the channel's secret."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8089)
        parser.add_argument("--secret", help="whsec_... (default: the secrets of the channels pointing here)")

    def handle(self, *args, port, secret, **options):
        out = self.stdout

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                secrets = (
                    [secret]
                    if secret
                    else list(
                        Channel.objects.filter(url__contains=f"127.0.0.1:{port}").values_list(
                            "secret", flat=True
                        )
                    )
                )
                verdict, payload = "NOT VERIFIED (no matching secret)", None
                for candidate in secrets:
                    try:
                        payload = Webhook(candidate).verify(body, dict(self.headers))
                        verdict = "verified"
                        break
                    except WebhookVerificationError:
                        continue
                if payload is None:
                    payload = json.loads(body or b"{}")
                data = payload.get("data", {})
                out.write(
                    f"{self.headers.get('webhook-id', '-')} {verdict}: {payload.get('type', 'slack text')} "
                    f"{data.get('title') or payload.get('text', '')}"
                )
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        out.write(f"Receiving webhooks on http://127.0.0.1:{port}/ (Ctrl-C to stop).")
        server = HTTPServer(("127.0.0.1", port), Handler)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
