"""Evaluate every alert rule now and deliver the notifications that are due (the task runner does this
every minute; this is for operators)."""

from django.core.management.base import BaseCommand

from health.tasks import evaluate_alerts


class Command(BaseCommand):
    help = (
        "Evaluate every brand's alert rules and the service-side rule once, then deliver due notifications."
    )

    def handle(self, *args, **options):
        self.stdout.write(evaluate_alerts())
