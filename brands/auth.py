"""DRF authentication for developer keys (docs/decisions.md, "Developer keys"). Glue only: hashing lives
in the key model, and the sentences answered live with the API's other answers (attribution.outcomes):
a refusal carries only its reason as the exception's code (malformed, unknown_key, expired_key)."""

from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import DeveloperKey

# Writing last_used_at on every call would cost a query per request; a minute's precision is enough.
LAST_USED_PRECISION = timedelta(minutes=1)


class DeveloperKeyAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <key>`, scheme case-insensitive. `request.auth` is the DeveloperKey."""

    keyword = "bearer"

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        # Exactly "Bearer", one space, the key: a stray space or a second word is a template or
        # copy-paste bug the brand should see at once, not something to guess around.
        scheme, _, key = header.strip().partition(" ")
        if scheme.lower() != self.keyword or not key or any(char.isspace() for char in key):
            # Another scheme carries no Bearer credentials at all; a broken Bearer header is a bad request.
            request.auth_error = "invalid_request" if scheme.lower() == self.keyword else ""
            raise exceptions.AuthenticationFailed(code="malformed")
        request.auth_error = "invalid_token"
        try:
            dev_key = DeveloperKey.objects.get_from_key(key)
        except DeveloperKey.DoesNotExist:
            self._remember_failed(request, key)
            raise exceptions.AuthenticationFailed(code="unknown_key") from None
        if dev_key.has_expired:
            self._remember_failed(request, key)
            raise exceptions.AuthenticationFailed(code="expired_key")
        request.auth_error = ""
        now = timezone.now()
        if dev_key.last_used_at is None or now - dev_key.last_used_at > LAST_USED_PRECISION:
            DeveloperKey.objects.filter(pk=dev_key.pk).update(last_used_at=now)
        request.event_key = dev_key  # for the outcome log, even when a throttle refuses the request next
        return (None, dev_key)

    @staticmethod
    def _remember_failed(request, key: str) -> None:
        """A revoked or mistyped key whose prefix is known: log the refusal in its brand's health view."""
        prefix = key.partition(".")[0]
        if 0 < len(prefix) <= 8:
            request.failed_key = DeveloperKey.objects.filter(prefix=prefix).only("prefix", "brand_id").first()

    def authenticate_header(self, request):
        # RFC 6750 section 3: a missing key gets the bare challenge; a refused one says why.
        error = getattr(request, "auth_error", "")
        return f'Bearer realm="api", error="{error}"' if error else 'Bearer realm="api"'
