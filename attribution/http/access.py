"""What every keyed endpoint under /api/ shares, whichever way in it belongs to (the API's views, the
reconciliation's): answers in JSON whatever the Accept header, and a developer key required."""

from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer

from attribution.http import throttles


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


class AnswerRenderer(JSONRenderer):
    """DRF's JSONRenderer (settings.REST_FRAMEWORK), with the encoder of a compact answer built once.

    DRF builds a JSONEncoder for every answer and reads the accepted media type's parameters for an
    indent: ~15k instructions of an order confirmation. An answer no one asked to indent (AlwaysJSON
    accepts the renderer's own media type, without parameters) is encoded by one encoder of the same
    class and options, into the same bytes; any other is rendered by DRF's own code."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if (
            data is None
            or accepted_media_type != self.media_type
            or (renderer_context or {}).get("indent") is not None
            or not self.compact
        ):
            return super().render(data, accepted_media_type, renderer_context)
        text = self.compact_encoder.encode(data)
        # As DRF's: \u2028 and \u2029 escaped, so the answer is also valid JavaScript.
        return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()

    # What DRF's render() builds for such an answer (rest_framework.utils.json.dumps), once; an encoder
    # keeps no state between documents.
    compact_encoder = JSONRenderer.encoder_class(
        ensure_ascii=JSONRenderer.ensure_ascii, allow_nan=not JSONRenderer.strict, separators=(",", ":")
    )


class KeyRequired:
    """Views that need a developer key: a request without a valid one is refused (401), and an address
    refused too often is answered 429 instead (attribution.http.throttles)."""

    def perform_authentication(self, request):
        try:
            super().perform_authentication(request)
            if request.auth is None:
                raise exceptions.NotAuthenticated()
        except (exceptions.AuthenticationFailed, exceptions.NotAuthenticated):
            throttles.count_refused_authentication(request)
            raise
