"""A platform's privacy request about data the service holds: Shopify's compliance topics (customers/data_request,
customers/redact, shop/redact) and its app/uninstalled, kept with what was held and what was done (docs/integration.md, "Privacy
requests"). Account managers read them in the admin; the one for a data request says what to send the merchant.
"""

from django.db import models
from django.utils import timezone

from .brand import Brand
from .platform_connections import PlatformConnection


class PlatformPrivacyRequest(models.Model):
    class Topic(models.TextChoices):
        DATA_REQUEST = "customers/data_request", "A shopper asked for their data"
        CUSTOMER_REDACT = "customers/redact", "Erase a shopper's data"
        SHOP_REDACT = "shop/redact", "Erase the shop's data"
        UNINSTALLED = "app/uninstalled", "The shop uninstalled the app"

    # Null when no connection of the shop is known (nothing is held then, and the request says so).
    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    connection = models.ForeignKey(
        PlatformConnection, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    platform = models.CharField(max_length=17)
    shop_domain = models.CharField(max_length=253)
    topic = models.CharField(max_length=32, choices=Topic.choices)
    # The platform's id of this delivery (X-Shopify-Webhook-Id, the same on every retry): a retry is one request.
    delivery_id = models.CharField(max_length=255)
    # sha256:<hex> of the signed body: a body received again under another delivery id is a replay, and does
    # nothing new (docs/threat-model.md, "Round six", finding 7). "" on requests kept before it was.
    body_digest = models.CharField(max_length=71, blank=True, default="")
    # The platform's customer id and the shopper's address hashed (brands.hosts.hash_email); never the address.
    customer_id = models.CharField(max_length=64, blank=True, default="")
    email_hash = models.CharField(max_length=64, blank=True, default="")
    orders = models.JSONField(default=list, blank=True)  # the platform's order ids the request names
    # What the service held when the request came ({"known_shoppers": 1, "log_events": 3, ...}), and what it did.
    held = models.JSONField(default=dict, blank=True)
    done = models.TextField(blank=True, default="")
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "platform privacy request"
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "delivery_id"], name="privacy_request_delivery_unique"
            ),
        ]
        indexes = [
            # Whether a body was received before (attribution.platforms.connect.views): one lookup per delivery.
            models.Index(fields=["shop_domain", "topic", "body_digest"], name="privacy_request_body_idx"),
            # The admin's list: newest first.
            models.Index(fields=["-received_at"], name="privacy_request_time_idx"),
        ]

    def __str__(self):
        return f"{self.topic} {self.shop_domain} {self.received_at:%Y-%m-%d}"
