from django.core.management.base import BaseCommand

from attribution.durability.spool import spool_dir
from attribution.replay import replay_all


class Command(BaseCommand):
    help = "Process every event kept in the spool exactly once, as at its original receipt time."

    def handle(self, *args, **options):
        summary = replay_all()
        self.stdout.write(
            f"Replayed {summary.replayed} spooled event(s) from {spool_dir()}; "
            f"{summary.already_done} were already replayed, {summary.still_failing} still failing and kept, "
            f"{summary.dead_lettered} moved to the dead letters; {summary.waiting} waiting."
        )
