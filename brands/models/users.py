"""Who may read a brand's health pages, and what each user picks for herself (the time zone)."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from brands.timezones import validate_time_zone

from .brand import Brand


class BrandMembership(models.Model):
    """A user who may read a brand's health pages. Staff (account managers) see every brand."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="brand_memberships"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["brand", "user"], name="membership_unique_user_per_brand"),
        ]

    def __str__(self):
        return f"{self.user} @ {self.brand}"


class UserSettings(models.Model):
    """What a user picks for herself: the time zone every page and CSV export shows times in (brands.timezones).

    One row per user, made when she first picks; without one she sees UTC.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="page_settings"
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="An IANA time zone name such as Europe/Berlin; times on the pages and in CSV files use it.",
    )

    class Meta:
        verbose_name = "user settings"
        verbose_name_plural = "user settings"

    def __str__(self):
        return f"{self.user}: {self.time_zone}"


def brands_visible_to(user):
    """The brands whose health pages `user` may read: all for staff, their memberships otherwise."""
    if not user.is_authenticated or not user.is_active:
        return Brand.objects.none()
    if user.is_staff:
        return Brand.objects.all()
    return Brand.objects.filter(memberships__user=user)
