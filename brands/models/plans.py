"""A brand's commission plan: one document per version, each with the moment it takes effect. A version is
never edited (the database refuses it on PostgreSQL, the model everywhere) and goes only with its brand; a
change is a new version (attribution.plans.store writes them, attribution.plans.document checks them)."""

from django.db import models
from django.utils import timezone

from .brand import Brand


class PlanVersion(models.Model):
    """Version `version` of a brand's commission plan (docs/plans.md)."""

    class Edited(Exception):
        """A stored version was about to be changed or deleted: make a new version instead."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="plan_versions", db_index=False)
    version = models.PositiveIntegerField()
    document = models.JSONField()
    effective_from = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    # Who made it: a user's name, "developer key <prefix>", or "migration" for version 1 of a brand's rates.
    created_by = models.CharField(max_length=150, blank=True, default="")

    class Meta:
        verbose_name = "commission plan version"
        ordering = ["brand", "version"]
        constraints = [
            # Also the index every read of a brand's versions uses (resolution's load, the page, the API).
            models.UniqueConstraint(fields=["brand", "version"], name="plan_version_brand_version_unique"),
            models.CheckConstraint(name="plan_version_from_one", condition=models.Q(version__gte=1)),
        ]

    def __str__(self):
        return f"plan v{self.version} of brand {self.brand_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise self.Edited(f"plan version {self.version} of brand {self.brand_id} is never edited")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise self.Edited(f"plan version {self.version} of brand {self.brand_id} is never deleted")
