"""A WooCommerce key handover waiting for its keys and then for its brand user's confirmation (docs/threat-model.md,
"Round six"): the opaque id the site carries as `user_id`, what was asked (brand, property, site, scope), and
the keys the callback checked, sealed, until the session that started it confirms them on the return page."""

import secrets

from django.db import models
from django.utils import timezone

from brands import sealing

from .brand import Brand
from .properties import Property


def new_handover_id() -> str:
    return secrets.token_urlsafe(24)


class KeyHandover(models.Model):
    """One use each way: the callback takes it once (`called_at`), the return page confirms it once
    (`confirmed_at`). Until confirmed no connection is made or changed."""

    # Opaque: it shows the site nothing of the brand or the property (unlike a signed token).
    handover_id = models.CharField(max_length=64, unique=True, default=new_handover_id, editable=False)
    brand = models.ForeignKey(Brand, on_delete=models.CASCADE, related_name="+")
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="+")
    site_url = models.CharField(max_length=255)
    scope = models.CharField(
        max_length=16
    )  # what the service asked: read_write or read; the keys get no more
    created_at = models.DateTimeField(default=timezone.now)
    called_at = models.DateTimeField(null=True, blank=True)  # the callback took it (whatever came of it)
    # Sealed (brands.sealing): the checked keys' JSON, and the secret of the webhooks made on the site with them.
    credential = models.TextField(blank=True, default="")
    secret = models.TextField(blank=True, default="")
    site_timezone = models.CharField(max_length=64, blank=True, default="")
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "WooCommerce key handover"
        indexes = [
            # Pruning the handovers an hour past their start.
            models.Index(fields=["created_at"], name="key_handover_created_idx"),
        ]

    def __str__(self):
        return f"key handover of {self.site_url}"

    def keep_keys(self, *, credential: str, secret: str, site_timezone: str) -> None:
        self.credential = sealing.seal(credential)
        self.secret = sealing.seal(secret) if secret else ""
        self.site_timezone = site_timezone[:64]

    def credential_plain(self) -> str:
        return sealing.unseal(self.credential) if self.credential else ""

    def secret_plain(self) -> str:
        return sealing.unseal(self.secret) if self.secret else ""
