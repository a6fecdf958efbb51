"""The storefront platforms' webhook deliveries (attribution/platforms/): each verified delivery's id, so
that a redelivery changes nothing, and the deliveries whose signature failed, for the overview."""

from django.db import models

from brands.models import Brand, PlatformConnection


class PlatformDelivery(models.Model):
    """One delivery a connection's platform sent: verified (its id decides redeliveries), or refused for its
    signature (stored within the signature-failure limit, never unique: anyone can send one)."""

    # The connection's brand when the delivery came: every table of a brand's data is keyed by its brand, so
    # it can be partitioned or sharded by brand (docs/scaling.md).
    # Neither is checked by the database per delivery (health.references checks them daily): the receiver names
    # the connection it just read and its brand, and a check would lock both rows under every concurrent
    # delivery of the shop (a platform sends many at once; MultiXacts, docs/performance.md). Deleting a
    # connection or a brand still deletes its deliveries (Django's collector).
    brand = models.ForeignKey(
        Brand, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    connection = models.ForeignKey(
        PlatformConnection,
        on_delete=models.CASCADE,
        related_name="deliveries",
        db_index=False,
        db_constraint=False,
    )  # the indexes below start with brand or connection
    # Shopify's X-Shopify-Webhook-Id (the same on every retry); WooCommerce's X-WC-Webhook-Delivery-ID with
    # the body's digest (WooCommerce derives its id from the webhook and the second it was sent).
    delivery_id = models.CharField(max_length=255, blank=True, default="")
    topic = models.CharField(max_length=64, blank=True, default="")
    order_id = models.CharField(max_length=255, blank=True, default="")
    verified = models.BooleanField(default=True)
    received_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "platform deliveries"
        constraints = [
            # Decides redeliveries, race-safe: the second of two concurrent copies of one delivery waits on
            # this key and is then refused (attribution.platforms.recording). Unverified rows never take an id.
            models.UniqueConstraint(
                fields=["brand", "connection", "delivery_id"],
                condition=models.Q(verified=True),
                name="platform_delivery_once",
            ),
        ]
        indexes = [
            # The overview, per connection: the last delivery, deliveries per day and signature failures.
            models.Index(fields=["connection", "-received_at"], name="platform_delivery_time_idx"),
            # Retention (health.pruning): the oldest deliveries of every connection.
            models.Index(fields=["received_at"], name="platform_delivery_prune_idx"),
        ]

    def __str__(self):
        return f"{self.topic} {self.delivery_id or '(unverified)'}"
