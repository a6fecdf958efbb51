"""Creators' short links (/l/<code>) and the clicks they record; a click's id is what the shopper's
sms_click_id cookie holds and what an order confirmation sends back as clickId."""

import secrets
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from attribution.outcomes.texts import say
from brands.hosts import normalize_host
from brands.models import Brand, Creator, DiscountCode, Property


def new_click_id() -> str:
    """The one click-id format: "clk_" and 32 lowercase hex digits (checked by attribution.parsing.is_click_id)."""
    return "clk_" + secrets.token_hex(16)


class Click(models.Model):
    """A shopper's click on a creator's link, stored in the sms_click_id cookie on the brand's site."""

    click_id = models.CharField(max_length=36, unique=True, default=new_click_id, editable=False)
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="clicks", db_index=False
    )  # the composite indexes below start with brand
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="clicks")
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, related_name="clicks")
    clicked_at = models.DateTimeField(default=timezone.now)
    user_agent = models.CharField(max_length=512, blank=True, default="")
    referrer = models.CharField(max_length=2048, blank=True, default="")
    ip_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [
            # Admin and reports: a brand's clicks, newest first.
            models.Index(fields=["brand", "-clicked_at"], name="click_brand_time_idx"),
            # The Creators page (health.pages.creators.list_queries.creator_table): a brand's clicks of a period
            # counted per creator, read from the index alone (tens of thousands of clicks a month).
            models.Index(
                fields=["brand", "clicked_at"], include=["creator"], name="click_creator_period_idx"
            ),
        ]

    def __str__(self):
        return self.click_id


LINK_CODE_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def new_link_code() -> str:
    """A fresh link code: 10 characters of LINK_CODE_ALPHABET (36^10 possibilities, not guessable)."""
    return "".join(secrets.choice(LINK_CODE_ALPHABET) for _ in range(10))


class CreatorLink(models.Model):
    """A creator's short link, /l/<code>: each visit records a Click and redirects to the brand's site."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="creator_links")
    creator = models.ForeignKey(Creator, on_delete=models.CASCADE, related_name="links")
    code = models.SlugField(
        max_length=64,
        unique=True,
        default=new_link_code,
        help_text="The part after /l/ in the link: letters, digits, - and _; stored lower-case.",
    )
    destination_url = models.URLField(
        max_length=2048,
        help_text="Where the shopper lands: an http(s) page on one of the brand's registered properties.",
    )
    discount_code = models.ForeignKey(
        DiscountCode,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="links",
        help_text="Optional: passed to the brand's site as smscode so its checkout can apply it.",
    )
    is_active = models.BooleanField(default=True, help_text="Inactive links answer 404 and record nothing.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Links are looked up by the lower-cased code, so a stored code must be lower-case.
            models.CheckConstraint(name="creatorlink_code_lowercase", condition=models.Q(code=Lower("code"))),
            models.CheckConstraint(name="creatorlink_code_not_empty", condition=~models.Q(code="")),
        ]
        indexes = [
            # Admin: a brand's links, newest first (the list filtered by brand).
            models.Index(fields=["brand", "-created_at"], name="creatorlink_brand_time_idx"),
            # Admin and setup page: one creator's links within a brand.
            models.Index(fields=["brand", "creator"], name="creatorlink_brand_creator_idx"),
        ]

    def __str__(self):
        return self.code

    def clean(self):
        errors = {}
        self.code = (self.code or "").strip().lower()
        if not self.code:
            errors["code"] = say("link.no_code")
        host_error = self._destination_error()
        if host_error:
            errors["destination_url"] = host_error
        if self.brand_id is not None:
            if self.creator_id is not None and self.creator.brand_id != self.brand_id:
                errors["creator"] = say("link.creator_of_other_brand")
            code = self.discount_code if self.discount_code_id is not None else None
            if code is not None and code.brand_id != self.brand_id:
                errors["discount_code"] = say("link.code_of_other_brand")
            elif code is not None and code.creator_id is not None and code.creator_id != self.creator_id:
                errors["discount_code"] = say("link.code_of_other_creator")
        if errors:
            raise ValidationError(errors)

    def _destination_error(self) -> str | None:
        """Why the destination cannot be a landing page of this brand, or None when it can."""
        if not self.destination_url:
            return None  # the field's own "required" error says it
        try:
            parts = urlsplit(self.destination_url)
        except ValueError:
            return say("link.invalid_url")
        if parts.scheme not in ("http", "https"):
            return say("link.not_http")
        if parts.username or parts.password:
            return say("link.credentials")
        host = normalize_host(self.destination_url)
        if not host:
            return say("link.no_host")
        if self.brand_id is None:
            return None  # the brand field's own error says it
        if not Property.objects.filter(brand_id=self.brand_id, host=host).exists():
            return say("link.not_a_property", host=host, brand=self.brand)
        return None
