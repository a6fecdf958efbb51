"""A brand's storefront-platform connection, its write-only signing secret, and the statement the receivers
find a delivery's connection by."""

from collections.abc import Iterator

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from brands import known_platforms, sealing
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

    class ConnectedVia(models.TextChoices):
        TYPED = "typed", "Typed in (its ownership proved by an account manager's approval)"
        OAUTH = "oauth", "Shopify app OAuth"
        KEY_HANDOVER = "key_handover", "WooCommerce key handover"
        ADMIN_TOKEN = "admin_token", "Admin API token pasted by an account manager"

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
        "X-Shopify-Shop-Domain). WooCommerce: the WordPress site's host and path, if it has one (shop.example/store; "
        "its X-WC-Webhook-Source).",
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

    # How the shop was connected, and the platform API's credential that reads its orders (the sync) and manages
    # its webhooks (docs/integration.md, "Connecting a shop"). Connections by OAuth, key handover or a pasted
    # token proved the shop's ownership with that credential; a typed-in one waits for an account manager.
    connected_via = models.CharField(
        max_length=16, choices=ConnectedVia.choices, default=ConnectedVia.TYPED, editable=False
    )
    # Sealed like `secret` (brands.sealing). Shopify: the Admin API access token; WooCommerce: the JSON
    # {"consumer_key": ..., "consumer_secret": ...}. Never shown back, never logged.
    credential = models.TextField(blank=True, default="", editable=False)
    # Shopify's expiring offline tokens (docs/integration.md, "Shopify's expiring tokens"): the access token above
    # lives an hour; the refresh token (sealed too) buys the next pair. The four are written together
    # (set_credential), under the row's lock when refreshed (attribution.platforms.connect.shopify_tokens).
    # Empty: a credential that does not expire (a pasted token, WooCommerce's keys, an OAuth token of before).
    credential_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    refresh_token = models.TextField(blank=True, default="", editable=False)
    refresh_token_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    api_scopes = models.CharField(
        "granted scopes",
        max_length=255,
        blank=True,
        default="",
        editable=False,
        help_text="The scopes the credential holds, comma-separated (read_orders; WooCommerce: read or read_write).",
    )
    platform_shop_id = models.CharField(max_length=100, blank=True, default="", editable=False)
    shop_currency = models.CharField(max_length=3, blank=True, default="", editable=False)
    shop_timezone = models.CharField(max_length=64, blank=True, default="", editable=False)
    site_url = models.CharField(
        max_length=255,
        blank=True,
        default="",
        editable=False,
        help_text="WooCommerce: the site's origin (https://shop.example), which its API is called at.",
    )
    # Uninstalled, or the credential was refused: a disconnected connection is not synced until reconnected.
    disconnected_at = models.DateTimeField(null=True, blank=True, editable=False)
    disconnect_reason = models.TextField(blank=True, default="", editable=False)

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
        return f"{self.platform_title()} {self.shop_name()}"

    def shop_name(self) -> str:
        """The shop as the pages name it: a Shopify shop by its myshopify.com domain, a WooCommerce site by its
        address (host and path: several sites may share a host, as the demo's stand-in does), not its host."""
        if self.platform == "woocommerce" and self.site_url:
            return self.site_url.split("://", 1)[-1].rstrip("/")
        return self.shop_domain

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
        domain = known_platforms.shop_key(self.platform, self.shop_domain or "")
        if not domain or "." not in domain:
            raise ValidationError({"shop_domain": "Enter the shop's domain, such as name.myshopify.com."})
        problem = known_platforms.shop_domain_problem(self.platform, domain)
        if problem:
            raise ValidationError({"shop_domain": problem})
        self.shop_domain = domain
        if self.property_id and self.brand_id and self.property.brand_id != self.brand_id:
            raise ValidationError({"property": "The property belongs to another brand."})

    def save(self, *args, **kwargs):
        self.shop_domain = known_platforms.shop_key(self.platform, self.shop_domain) or self.shop_domain
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

    def set_credential(
        self, plain: str, *, expires_at=None, refresh_token: str = "", refresh_expires_at=None
    ) -> None:
        """Keep the platform API's credential, sealed, with its expiry and refresh token when it expires (all
        four at once: a credential never keeps the refresh token of another); an empty one forgets them all."""
        self.credential = sealing.seal(plain) if plain else ""
        self.credential_expires_at = expires_at if plain else None
        self.refresh_token = sealing.seal(refresh_token) if plain and refresh_token else ""
        self.refresh_token_expires_at = refresh_expires_at if self.refresh_token else None

    def refresh_token_plain(self) -> str:
        """The refresh token in clear ("" when none): only for the platform's token endpoint."""
        return sealing.unseal(self.refresh_token) if self.refresh_token else ""

    def credential_plain(self) -> str:
        """The credential in clear ("" when none): only for a call to the platform, never to show or log."""
        return sealing.unseal(self.credential) if self.credential else ""

    def has_credential(self) -> bool:
        return bool(self.credential)

    def can_sync(self) -> bool:
        """Whether the service may read this shop's orders through its API now."""
        return (
            self.is_enabled
            and self.approved_at is not None
            and self.has_credential()
            and self.disconnected_at is None
        )

    def signing_secrets(self, *, now) -> Iterator[str]:
        """The secrets a delivery may be signed with at `now`, each decrypted only when asked for: the current
        one (the app's client secret for a connection made by OAuth), then the one it replaced within
        PLATFORM_PREVIOUS_SECRET_SECONDS."""
        if self.secret:
            yield sealing.unseal(self.secret)
        if self.connected_via == self.ConnectedVia.OAUTH and settings.SHOPIFY_CLIENT_SECRET:
            # The subscriptions an app makes (webhookSubscriptionCreate) are signed with the app's client secret.
            yield settings.SHOPIFY_CLIENT_SECRET
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
