"""Refresh every active brand's review flags from its figures (run daily, e.g. from the task runner)."""

from django.core.management.base import BaseCommand

from attribution.review import figures
from brands.models import Brand


class Command(BaseCommand):
    help = (
        "Compute each active brand's refund-rate and code-share figures and replace its review flags: the "
        "creators and codes whose new orders the refund_rate and code_leak rules hold (docs/review.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--brand", type=int, default=None, help="only this brand id")

    def handle(self, *args, brand, **options):
        brands = Brand.objects.filter(is_active=True).order_by("pk")
        if brand is not None:
            brands = brands.filter(pk=brand)
        total = 0
        for brand_id in brands.values_list("pk", flat=True):
            total += len(figures.refresh(brand_id))
        self.stdout.write(f"Refreshed the review figures of {brands.count()} brands: {total} flags stand.")
