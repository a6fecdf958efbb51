"""What every keyed endpoint under /api/ shares, whichever way in it belongs to (the API's views, the
reconciliation's): answers in JSON whatever the Accept header, and a developer key required."""

from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation

from attribution.api import throttles


class AlwaysJSON(DefaultContentNegotiation):
    """Every answer under /api/ is JSON, whatever the client's Accept header asks for.

    Server HTTP clients send all kinds of Accept headers; refusing them with 406 would turn a good
    event into an error. Skipping the Accept parsing also saves it on every request.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type

    def select_parser(self, request, parsers):
        # A view whose one parser reads every media type (the event views' StrictJSONParser) reads every
        # body with it: matching it against the Content-Type parsed both media types on every request.
        if len(parsers) == 1 and parsers[0].media_type == "*/*":
            return parsers[0]
        return super().select_parser(request, parsers)


class KeyRequired:
    """Views that need a developer key: a request without a valid one is refused (401), and an address
    refused too often is answered 429 instead (attribution.api.throttles)."""

    def perform_authentication(self, request):
        try:
            super().perform_authentication(request)
            if request.auth is None:
                raise exceptions.NotAuthenticated()
        except (exceptions.AuthenticationFailed, exceptions.NotAuthenticated):
            throttles.count_refused_authentication(request)
            raise
