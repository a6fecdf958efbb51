"""Throttles ("Outcome codes beyond the interface's lists" in docs/decisions.md: 429 `rate_limited` with Retry-After). Rates come from settings.API_THROTTLE_RATES
and are read per request, so tests and operators can change them without a restart of the class."""

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from config.lib.clients import client_address


class _SettingsRateThrottle(SimpleRateThrottle):
    def __init__(self):
        pass  # rate is resolved per request in allow_request

    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        self.rate = settings.API_THROTTLE_RATES.get(self.scope)
        if not self.rate:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class PerClientIpThrottle(_SettingsRateThrottle):
    """Order confirmation is unauthenticated: limit each client IP."""

    scope = "order_confirmation"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PerDeveloperKeyThrottle(_SettingsRateThrottle):
    """Cancel, update and read: limit each developer key (each client IP while unauthenticated)."""

    scope = "developer_key"

    def get_cache_key(self, request, view):
        key = request.auth
        ident = f"key:{key.prefix}" if key is not None else f"ip:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
