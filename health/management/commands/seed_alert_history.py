"""Give a demo brand a week of backdated order history, so its silence rule has something to compare with,
and its users an email address, so alerts reach the console. For trying alerts locally (docs/alerts.md)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from attribution.outcomes.endpoints import Endpoint
from brands.models import Brand
from health.log.models import OutcomeEvent
from health.log.rollup import roll_up
from health.log.writer import EventRecord, record

MARKER = "history-"


class Command(BaseCommand):
    help = "Write a week of backdated live order confirmations for a demo brand, and give its users an email address."

    def add_arguments(self, parser):
        parser.add_argument("--brand", default="Acme Demo", help="the brand's name (default: Acme Demo)")
        parser.add_argument(
            "--per-hour", type=int, default=12, help="orders per hour in the history (default 12)"
        )
        parser.add_argument("--force", action="store_true", help="run even when DEBUG is false")

    def handle(self, *args, brand, per_hour, force, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "DEBUG is false: this looks like production. Pass --force to write demo history."
            )
        found = Brand.objects.filter(name=brand).first()
        if found is None:
            raise CommandError(f"No brand named {brand!r}; run `manage.py seed_demo` first.")
        emails = []
        for user in get_user_model().objects.filter(brand_memberships__brand=found, email=""):
            user.email = f"{user.username}@example.com"
            user.save(update_fields=["email"])
            emails.append(user.email)
        now = timezone.now()
        start = now - timedelta(days=7)
        written = 0
        # Once (a second run keeps the history it wrote), and all at once: an evaluation running meanwhile
        # must not judge half a week.
        with transaction.atomic():
            if OutcomeEvent.objects.filter(brand=found, order_id__startswith=MARKER).exists():
                start = now
            step = timedelta(hours=1) / max(per_hour, 1)
            at = start
            while at < now - timedelta(minutes=10):
                record(
                    EventRecord(
                        endpoint=Endpoint.ORDER_CONFIRMATION,
                        outcome="no_attribution",
                        http_status=200,
                        received_at=at,
                        recorded_at=at,
                        brand_id=found.pk,
                        order_id=f"{MARKER}{at:%Y%m%d%H%M%S}",
                        request_body={
                            "orderId": f"{MARKER}{at:%Y%m%d%H%M%S}",
                            "note": "backdated demo history",
                        },
                    )
                )
                written += 1
                at += step
        roll_up(now=now)
        self.stdout.write(
            f"Wrote {written} backdated live order confirmations for {found.name} ({per_hour} an hour over 7 days, "
            f"the last 10 minutes ago); gave {len(emails)} user(s) an email address{': ' + ', '.join(emails) if emails else ''}."
        )
