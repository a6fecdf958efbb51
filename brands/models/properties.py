"""A brand's properties: the storefront hosts its events are resolved by."""

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone

from brands.hosts import is_public_suffix, normalize_host, registrable_domain

from .brand import Brand


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
