"""Build the demo world: three brands in which every order outcome can be produced by hand with curl (the
handoff brand's orders also by its Shopify shop's signed webhook), and the JSON document (keys as in the demo
world's description in docs/) naming its ids, codes, keys, logins and the shop's webhook secret.

Safe to run again: it reuses what exists and moves the fresh clicks back inside the attribution window.
The demo developer keys stay the same across runs: only hashes are stored, so the plaintexts are read back
from the document written before (--json PATH) and kept while their hash still matches a demo key of the
brand. Without that document, or with --reset, new keys are minted and the ones printed before revoked.
"""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from attribution.management.demo.keys import KEY_ROLES, keys_of, keys_printed_before
from attribution.management.demo.summary import summary
from attribution.management.demo.world import build


class Command(BaseCommand):
    help = "Build or refresh the demo world and print its JSON document (or write it with --json PATH)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--json", metavar="PATH", help="write the document to PATH instead of printing it"
        )
        parser.add_argument(
            "--summary",
            action="store_true",
            help="also print the demo logins, the main developer key and a ready curl line",
        )
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="address used in the printed curl line"
        )
        parser.add_argument(
            "--force", action="store_true", help="build the demo world even when DEBUG is false"
        )
        parser.add_argument(
            "--reset",
            action="store_true",
            help="issue new demo developer keys; the ones printed before stop working",
        )

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["force"]:
            # The demo world creates a superuser with a printed password: never by accident in production.
            raise CommandError(
                "DEBUG is false: this looks like production. Pass --force to build the demo world anyway."
            )
        now = timezone.now()
        path = options["json"]
        printed_before = {} if options["reset"] or not path else keys_printed_before(Path(path))
        with transaction.atomic():
            document = build(now=now, printed_before=printed_before)
        # The document alone goes to stdout when printed, so it can be piped; words go to stderr then.
        human = self.stdout if path else self.stderr
        if path:
            Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        else:
            self.stdout.write(json.dumps(document, indent=2))
        if options["summary"]:
            human.write(summary(document, base_url=options["base_url"].rstrip("/"), now=now, path=path))
        kept = [key for key in keys_of(document).values() if key in printed_before.values()]
        keys = (
            "the demo developer keys printed before are kept (--reset issues new ones)"
            if len(kept) == len(KEY_ROLES)
            else "fresh demo developer keys issued"
        )
        human.write(
            "Demo world ready: 3 brands, 6 clicks, 6 discount codes, 1 known shopper, 1 Shopify shop, 3 users, orders in "
            "EUR and GBP, a paid statement of last month, currency rates up to today (marked demo), "
            "the API examples' orders; "
            f"{keys}; document {'written to ' + path if path else 'printed'}."
        )
