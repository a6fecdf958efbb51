"""Brands and what account managers register for them: properties, developer keys, creators,
discount codes, known shoppers, storefront-platform connections and the users who may read a brand's
health pages, with each user's own settings (the time zone pages show times in).

Every table that holds a brand's data carries `brand` and its uniqueness rules include it, so the
data can later be partitioned or sharded by brand.
"""

from collections.abc import Iterator
from decimal import Decimal
from functools import lru_cache
from zoneinfo import available_timezones

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.functional import cached_property
from rest_framework_api_key.models import AbstractAPIKey, BaseAPIKeyManager

from config.lib.statements import SelectStatement

from . import sealing
from .hosts import is_public_suffix, normalize_host, registrable_domain

_percent = [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))]


class Brand(models.Model):
    name = models.CharField(max_length=200, unique=True)
    is_active = models.BooleanField(
        default=True, help_text="Inactive brands' events resolve to no brand (unresolved_domain)."
    )
    attribution_window_days = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1)],
        help_text="A click counts for orders received this many days after it (the attribution window).",
    )
    commission_rate_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("10"),
        validators=_percent,
        help_text="Commission as a percentage of the order amount.",
    )
    returning_commission_rate_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_percent,
        help_text="Rate for orders flagged is_returning_customer; empty means the normal rate.",
    )
    storefront_handles_orders = models.BooleanField(
        default=False,
        help_text="The brand's storefront-platform integration records its orders "
        "(events answer shopify_handoff). Also the case, ticked or not, while the brand has an enabled "
        "platform connection.",
    )
    lock_period_days = models.PositiveIntegerField(
        default=30,
        help_text="When an order carries no returnWindowClosesAt, its commission locks this many days after it.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                name="brand_rate_is_a_percentage",
                condition=models.Q(commission_rate_percent__gte=0, commission_rate_percent__lte=100),
            ),
            models.CheckConstraint(
                name="brand_returning_rate_is_a_percentage",
                condition=models.Q(returning_commission_rate_percent__isnull=True)
                | models.Q(
                    returning_commission_rate_percent__gte=0, returning_commission_rate_percent__lte=100
                ),
            ),
            models.CheckConstraint(
                name="brand_attribution_window_positive", condition=models.Q(attribution_window_days__gte=1)
            ),
        ]

    def __str__(self):
        return self.name

    def rate_for(self, *, is_returning_customer: bool) -> Decimal:
        if is_returning_customer and self.returning_commission_rate_percent is not None:
            return self.returning_commission_rate_percent
        return self.commission_rate_percent

    def primary_property(self) -> "Property | None":
        """The property marked primary, else the oldest one (the first registered), else None."""
        return self.properties.order_by("-is_primary", "created_at", "id").first()


class Property(models.Model):
    """A host (storefront domain) registered to a brand."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="properties")
    host = models.CharField(
        max_length=253,
        unique=True,
        help_text="Host name such as shop.example.com; lower-cased, without www., port or path.",
    )
    registrable_domain = models.CharField(max_length=253, editable=False)
    is_primary = models.BooleanField(
        "primary",
        default=False,
        help_text="The brand's main storefront: the setup page sends test orders from it. "
        "At most one per brand; marking one unmarks the other.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name_plural = "properties"
        ordering = ["host"]
        indexes = [
            # Resolution of a host that is not a property: which brand owns its registrable domain.
            models.Index(fields=["registrable_domain"], name="property_registrable_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["brand"],
                condition=models.Q(is_primary=True),
                name="property_one_primary_per_brand",
                violation_error_message="The brand already has a primary property.",
            ),
        ]

    def __str__(self):
        return self.host

    def clean(self):
        host = normalize_host(self.host or "")
        if not host or "." not in host:
            raise ValidationError({"host": "Enter a host name such as shop.example.com."})
        if is_public_suffix(host):
            raise ValidationError(
                {
                    "host": f"{host} is a public suffix shared by many sites; enter the brand's own host under it."
                }
            )
        self.host = host

    def validate_constraints(self, exclude=None):
        # Marking a property primary is always valid: save() unmarks the brand's other one.
        super().validate_constraints(exclude={*(exclude or ()), "is_primary"})

    def save(self, *args, **kwargs):
        self.host = normalize_host(self.host) or self.host
        self.registrable_domain = registrable_domain(self.host)
        with transaction.atomic():
            if self.is_primary:
                # Marking one property primary unmarks the brand's other one, first: the constraint
                # allows one at every moment.
                Property.objects.filter(brand_id=self.brand_id, is_primary=True).exclude(pk=self.pk).update(
                    is_primary=False
                )
            super().save(*args, **kwargs)


class PlatformConnection(models.Model):
    """A brand's storefront platform (Shopify, WooCommerce) sending its orders by signed webhook to the
    receivers of attribution/platforms/. While one is enabled, the brand's orders are the platform's
    (docs/decisions.md, "A storefront platform connection hands the brand's orders off").

    The signing secret is write-only: kept encrypted (brands.sealing), never shown back, never logged.
    """

    class Platform(models.TextChoices):
        SHOPIFY = "shopify", "Shopify"
        WOOCOMMERCE = "woocommerce", "WooCommerce"

    class Amount(models.TextChoices):
        SUBTOTAL = "subtotal", "After discounts, without shipping and taxes"
        TOTAL = "total", "The full total, shipping and taxes included"

    class OrderId(models.TextChoices):
        ID = "id", "The platform's order id (Shopify 450789469, WooCommerce 727)"
        NAME = "name", "The order's name or number (Shopify #1001, WooCommerce's order number)"

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="platform_connections", db_index=False
    )  # platform_connection_brand_idx below
    platform = models.CharField(max_length=12, choices=Platform.choices)
    shop_domain = models.CharField(
        max_length=253,
        help_text="Shopify: the shop's name.myshopify.com domain (what Shopify sends as "
        "X-Shopify-Shop-Domain). WooCommerce: the host of the WordPress site (its X-WC-Webhook-Source).",
    )
    property = models.ForeignKey(
        Property,
        on_delete=models.PROTECT,
        related_name="platform_connections",
        help_text="The property the platform's orders count for: a creator's click must have been made for it.",
    )
    # A Fernet token (brands.sealing); the previous one verifies for PLATFORM_PREVIOUS_SECRET_SECONDS
    # after it was replaced, since Shopify may sign with it for up to an hour after a rotation.
    secret = models.TextField(editable=False)
    previous_secret = models.TextField(blank=True, default="", editable=False)
    secret_replaced_at = models.DateTimeField(null=True, blank=True, editable=False)
    amount_counted = models.CharField(
        max_length=8,
        choices=Amount.choices,
        default=Amount.SUBTOTAL,
        help_text="The amount a commission is computed on: Shopify's (current_)subtotal_price by default.",
    )
    order_id_source = models.CharField(
        "order id",
        max_length=4,
        choices=OrderId.choices,
        default=OrderId.ID,
        help_text="Which of the platform's order ids your order confirmations, cancels and updates send.",
    )
    is_enabled = models.BooleanField(
        "enabled",
        default=True,
        help_text="A disabled connection's deliveries are answered and recorded, and change nothing.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = "platform connection"
        constraints = [
            # Also the index the receivers find a delivery's connection by (its shop header).
            models.UniqueConstraint(
                fields=["platform", "shop_domain"],
                name="platform_connection_shop_unique",
                violation_error_message="This shop is already connected (to this or another brand).",
            ),
            models.CheckConstraint(
                name="platform_connection_platform_valid",
                condition=models.Q(platform__in=["shopify", "woocommerce"]),
            ),
        ]
        indexes = [
            # The setup page, the overview and brand resolution: a brand's connections.
            models.Index(fields=["brand", "platform"], name="platform_connection_brand_idx"),
        ]

    def __str__(self):
        return f"{self.get_platform_display()} {self.shop_domain}"

    def clean(self):
        domain = normalize_host(self.shop_domain or "")
        if not domain or "." not in domain:
            raise ValidationError({"shop_domain": "Enter the shop's domain, such as name.myshopify.com."})
        if self.platform == self.Platform.SHOPIFY and not domain.endswith(".myshopify.com"):
            raise ValidationError(
                {
                    "shop_domain": "Enter the shop's myshopify.com domain (Settings → Domains in Shopify), "
                    "such as name.myshopify.com: Shopify names the shop by it on every webhook."
                }
            )
        self.shop_domain = domain
        if self.property_id and self.brand_id and self.property.brand_id != self.brand_id:
            raise ValidationError({"property": "The property belongs to another brand."})

    def save(self, *args, **kwargs):
        self.shop_domain = normalize_host(self.shop_domain) or self.shop_domain
        super().save(*args, **kwargs)

    def set_secret(self, plain: str, *, at=None) -> None:
        """Keep `plain` (trimmed) as the signing secret; the one it replaces verifies for a while longer."""
        plain = plain.strip()
        if not plain:
            raise ValueError("a signing secret cannot be empty")
        if self.secret:
            self.previous_secret = self.secret
            self.secret_replaced_at = at or timezone.now()
        self.secret = sealing.seal(plain)

    def signing_secrets(self, *, now) -> Iterator[str]:
        """The secrets a delivery may be signed with at `now`, each decrypted only when asked for: the current
        one, then the one it replaced within PLATFORM_PREVIOUS_SECRET_SECONDS."""
        if self.secret:
            yield sealing.unseal(self.secret)
        if self.previous_secret and self.previous_is_fresh(now=now):
            yield sealing.unseal(self.previous_secret)

    def previous_is_fresh(self, *, now) -> bool:
        return (
            self.secret_replaced_at is not None
            and (now - self.secret_replaced_at).total_seconds() <= settings.PLATFORM_PREVIOUS_SECRET_SECONDS
        )

    def replaced_secret(self) -> str | None:
        """The previous secret (however old), to tell a delivery signed with it from a forged one."""
        return sealing.unseal(self.previous_secret) if self.previous_secret else None


class DeveloperKeyManager(BaseAPIKeyManager):
    def get_from_key(self, key: str) -> "DeveloperKey":
        """The usable key with this plaintext, and whether its brand is active, in one statement.

        Every cancel, update and read call runs this: the library's select_related `get()` cost
        ~0.5 ms of Python to compile per call, a third of a cancel's own work (bench/README.md).
        """
        found = _usable_key([key.partition(".")[0], False])
        if found is None or not found.is_valid(key):
            raise self.model.DoesNotExist("Key is not valid.")
        return found


class DeveloperKey(AbstractAPIKey):
    """A brand's Bearer key for cancel, update and the read API (docs/decisions.md, "Developer keys").

    Only a SHA-512 hash is stored (keys are long random strings, so a fast hash is safe and keeps
    every API call cheap); the 8-character prefix before the dot finds the row.
    """

    objects = DeveloperKeyManager()

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="developer_keys")
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta(AbstractAPIKey.Meta):
        verbose_name = "developer key"
        verbose_name_plural = "developer keys"
        indexes = [
            # The admin's per-brand key list.
            models.Index(fields=["brand", "-created"], name="devkey_brand_created_idx"),
        ]

    @cached_property
    def brand_is_active(self) -> bool:
        """Whether the key's brand takes events (`get_from_key` reads it with the key)."""
        return self.brand.is_active

    def revoke(self):
        """Revoke for good; the library refuses to un-revoke."""
        self.revoked = True
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked", "revoked_at"])


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


@lru_cache(maxsize=1)
def time_zone_names() -> frozenset[str]:
    """The zones a user may pick: UTC and the Region/City names of the IANA database."""
    regional = {
        name
        for name in available_timezones()
        if "/" in name and not name.startswith(("Etc/", "posix/", "right/", "SystemV/"))
    }
    return frozenset({"UTC", *regional})


def validate_time_zone(name: str) -> None:
    if name not in time_zone_names():
        raise ValidationError(f"{name!r} is not a time zone name such as Europe/Berlin.")


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


# The key by its prefix with its brand's active flag (DeveloperKeyManager.get_from_key).
_usable_key = SelectStatement(
    DeveloperKey,
    "developer_key",
    f"FROM {DeveloperKey._meta.db_table} developer_key JOIN {Brand._meta.db_table} brand "
    "ON brand.id = developer_key.brand_id WHERE developer_key.prefix = %s AND developer_key.revoked = %s",
    extra={"brand_is_active": "brand.is_active"},
)


# A delivery's connection by its platform and shop, with its brand's active flag and its property's host
# (attribution/platforms/): one statement per delivery.
connection_of_shop = SelectStatement(
    PlatformConnection,
    "connection",
    f"FROM {PlatformConnection._meta.db_table} connection "
    f"JOIN {Brand._meta.db_table} brand ON brand.id = connection.brand_id "
    f"JOIN {Property._meta.db_table} property ON property.id = connection.property_id "
    "WHERE connection.platform = %s AND connection.shop_domain = %s",
    extra={"brand_is_active": "brand.is_active", "property_host": "property.host"},
)
