"""django-csp's middleware, which leaves the JSON event endpoints (the hot path) at once.

The library builds the policy for every response before it looks at EXCLUDE_URL_PREFIXES: about 0.1 ms
per order confirmation for a header it then drops."""

from csp.middleware import CSPMiddleware
from django.conf import settings


class PagesCSPMiddleware(CSPMiddleware):
    def _excluded(self, request) -> bool:
        return request.path_info.startswith(tuple(settings.CONTENT_SECURITY_POLICY["EXCLUDE_URL_PREFIXES"]))

    def process_request(self, request):
        if not self._excluded(request):
            super().process_request(request)

    def process_response(self, request, response):
        if self._excluded(request):
            return response
        return super().process_response(request, response)
