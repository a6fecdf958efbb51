"""A brand's developer keys (Bearer keys for cancel, update and the read API) and the one statement that finds
a usable key with its brand's active flag."""

from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property
from rest_framework_api_key.models import AbstractAPIKey, BaseAPIKeyManager

from config.lib.sql import SelectStatement

from .brand import Brand


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


# The key by its prefix with its brand's active flag (DeveloperKeyManager.get_from_key).
_usable_key = SelectStatement(
    DeveloperKey,
    "developer_key",
    f"FROM {DeveloperKey._meta.db_table} developer_key JOIN {Brand._meta.db_table} brand "
    "ON brand.id = developer_key.brand_id WHERE developer_key.prefix = %s AND developer_key.revoked = %s",
    extra={"brand_is_active": "brand.is_active"},
)
