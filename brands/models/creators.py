"""A brand's creators and what credits an order to one: the discount codes registered to them (or
blacklisted), and the known shoppers."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from .brand import Brand


class Creator(models.Model):
    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="creators")
    name = models.CharField(max_length=200)
    is_active = models.BooleanField(
        default=True, help_text="Inactive creators earn nothing; their orders answer banned_user."
    )
    # issue 38 (review holds): her own address, hashed as shoppers' are (brands.hosts.hash_email), so the
    # self_referral rule sees a shopper who is the creator herself; set by account managers, optional.
    email_hash = models.CharField(
        max_length=64, blank=True, default="", help_text="SHA-256 of the trimmed, lower-cased address."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["brand", "name"], name="creator_unique_name_per_brand"),
        ]

    def __str__(self):
        return self.name


class DiscountCode(models.Model):
    """A discount code of a brand: registered to a creator, or blacklisted (excluded from tracking)."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="discount_codes")
    code = models.CharField(max_length=100, help_text="Matched trimmed and case-insensitively.")
    creator = models.ForeignKey(
        Creator, on_delete=models.CASCADE, null=True, blank=True, related_name="discount_codes"
    )
    is_blacklisted = models.BooleanField(
        default=False, help_text="Orders with this code are never attributed (blacklisted_code)."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["code"]
        constraints = [
            # Also the index behind the order endpoint's code lookup: LOWER(code) within a brand.
            models.UniqueConstraint(
                Lower("code"),
                "brand",
                name="code_unique_ci_per_brand",
                violation_error_message="The brand already has this code (codes match whatever their case).",
            ),
            models.CheckConstraint(
                name="code_has_creator_or_is_blacklisted",
                condition=models.Q(creator__isnull=False) | models.Q(is_blacklisted=True),
                violation_error_message="Register the code to a creator, or mark it blacklisted.",
            ),
        ]

    def __str__(self):
        return self.code

    def clean(self):
        self.code = (self.code or "").strip()
        if not self.code:
            raise ValidationError({"code": "Enter a code."})
        if self.creator_id is not None and self.creator.brand_id != self.brand_id:
            raise ValidationError({"creator": "The creator belongs to another brand."})

    def save(self, *args, **kwargs):
        self.code = (self.code or "").strip()
        super().save(*args, **kwargs)


class KnownShopper(models.Model):
    """A shopper registered to a creator at a brand, known only by the hash of their email (docs/decisions.md, "Known shoppers")."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="known_shoppers")
    email_hash = models.CharField(max_length=64, help_text="SHA-256 of the trimmed, lower-cased address.")
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, related_name="known_shoppers")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            # Also the index behind the order endpoint's shopper lookup.
            models.UniqueConstraint(fields=["brand", "email_hash"], name="shopper_unique_per_brand"),
        ]

    def __str__(self):
        return f"{self.email_hash[:12]}… → {self.creator}"

    def clean(self):
        if self.creator_id and self.brand_id and self.creator.brand_id != self.brand_id:
            raise ValidationError({"creator": "The creator belongs to another brand."})
