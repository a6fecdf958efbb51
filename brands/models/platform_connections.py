"""A brand's storefront-platform connection, its write-only signing secret, and the statement the receivers
find a delivery's connection by."""

from collections.abc import Iterator

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from brands import known_platforms, sealing
from brands.hosts import normalize_host
from config.lib.sql import SelectStatement

from .brand import Brand
from .properties import Property


class PlatformConnection(models.Model):
    """A brand's storefront platform (Shopify, WooCommerce) sending its orders by signed webhook to the
    receivers of attribution/platforms/. While one is enabled, the brand's orders are the platform's
    (docs/decisions.md, "A storefront platform connection hands the brand's orders off").

    The signing secret is write-only: kept encrypted (brands.sealing), never shown back, never logged.
    """

    class Amount(models.TextChoices):
        SUBTOTAL = "subtotal", "After discounts, without shipping and taxes"
        TOTAL = "total", "The full total, shipping and taxes included"

    class OrderId(models.TextChoices):
        ID = "id", "The platform's order id (Shopify 450789469, WooCommerce 727)"
        NAME = "name", "The order's name or number (Shopify #1001, WooCommerce's order number)"

    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="platform_connections", db_index=False
    )  # platform_connection_brand_idx below
    # A platform's name (attribution.platforms.registry): which names exist is not the database's to list, so a
    # new platform needs no migration; brands.known_platforms has them, and clean() refuses any other.
    platform = models.CharField(max_length=known_platforms.MAX_NAME_LENGTH)
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
    # When an account manager approved it. One a brand user adds on the setup page waits for that (empty):
    # anyone may type any shop's domain there, so until approved it receives nothing and claims nothing.
    # Connections made in the admin are approved as they are made.
    approved_at = models.DateTimeField(null=True, blank=True, default=timezone.now, editable=False)

    class Meta:
        verbose_name = "platform connection"
        constraints = [
            # A shop belongs to one brand: among approved connections only, so that a pending claim (of a shop
            # typed on the setup page) reserves nothing. Also the index the receivers find a delivery's
            # connection by (its shop header).
            models.UniqueConstraint(
                fields=["platform", "shop_domain"],
                condition=models.Q(approved_at__isnull=False),
                name="platform_connection_active_shop_unique",
                violation_error_message="This shop is already connected (to this or another brand).",
            ),
            # One connection of a shop per brand, pending or approved (the setup page updates it).
            models.UniqueConstraint(
                fields=["brand", "platform", "shop_domain"],
                name="platform_connection_brand_shop_unique",
                violation_error_message="Your brand already has this shop.",
            ),
            # The shape of a platform's name (brands.known_platforms.NAME_SHAPE); which names exist, clean() asks.
            models.CheckConstraint(
                name="platform_connection_platform_name_shape",
                condition=models.Q(platform__regex=known_platforms.NAME_SHAPE),
            ),
        ]
        indexes = [
            # The setup page, the overview and brand resolution: a brand's connections.
            models.Index(fields=["brand", "platform"], name="platform_connection_brand_idx"),
            # A delivery of a shop no approved connection has: whether one waits for approval (a rare read).
            models.Index(
                fields=["platform", "shop_domain"],
                condition=models.Q(approved_at__isnull=True),
                name="platform_conn_pending_idx",
            ),
        ]

    def __str__(self):
        return f"{self.platform_title()} {self.shop_domain}"

    def platform_title(self) -> str:
        """The platform as the pages name it (its registered title: "Shopify")."""
        return known_platforms.title_of(self.platform)

    platform_title.short_description = "platform"  # the admin's list column
    platform_title.admin_order_field = "platform"

    def clean(self):
        if self.platform and not known_platforms.is_known(self.platform):  # an empty one: the field's error
            raise ValidationError(
                {"platform": "Choose one of the platforms this service receives orders from."}
            )
        domain = normalize_host(self.shop_domain or "")
        if not domain or "." not in domain:
            raise ValidationError({"shop_domain": "Enter the shop's domain, such as name.myshopify.com."})
        problem = known_platforms.shop_domain_problem(self.platform, domain)
        if problem:
            raise ValidationError({"shop_domain": problem})
        self.shop_domain = domain
        if self.property_id and self.brand_id and self.property.brand_id != self.brand_id:
            raise ValidationError({"property": "The property belongs to another brand."})

    def save(self, *args, **kwargs):
        self.shop_domain = normalize_host(self.shop_domain) or self.shop_domain
        super().save(*args, **kwargs)

    def is_pending(self) -> bool:  # a method: `property` here is the field
        """Waiting for an account manager's approval: it receives nothing and claims nothing."""
        return self.approved_at is None

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


# A delivery's connection by its platform and shop, with its brand's active flag and its property's host
# (attribution/platforms/): one statement per delivery.
connection_of_shop = SelectStatement(
    PlatformConnection,
    "connection",
    f"FROM {PlatformConnection._meta.db_table} connection "
    f"JOIN {Brand._meta.db_table} brand ON brand.id = connection.brand_id "
    f"JOIN {Property._meta.db_table} property ON property.id = connection.property_id "
    "WHERE connection.platform = %s AND connection.shop_domain = %s AND connection.approved_at IS NOT NULL",
    extra={"brand_is_active": "brand.is_active", "property_host": "property.host"},
)
