"""What a brand's storefront says of its products that an order's line items do not carry: each product's
collections (Shopify collection handles, WooCommerce category slugs), read by the platform's sync and kept, so
that a webhook's lines name them too (issue 56: a commission plan's `collections` condition)."""

from django.db import models
from django.utils import timezone

from .brand import Brand


class ProductCollections(models.Model):
    """One product's collections as its platform last listed them; refreshed daily by the sync."""

    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+", db_index=False)
    platform = models.CharField(max_length=17)  # as connections name it: "shopify", "woocommerce"
    product_id = models.CharField(max_length=255)  # the platform's id, as its line items name it
    collections = models.JSONField(default=list)  # handles or slugs, as sent
    refreshed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Also the index behind an order's one read of its products' collections (IN by product id).
            models.UniqueConstraint(
                fields=["brand", "platform", "product_id"], name="product_collections_unique"
            ),
        ]

    def __str__(self):
        return f"{self.platform} product {self.product_id}: {', '.join(self.collections)}"
