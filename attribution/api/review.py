"""POST /api/Affiliates/review (issue 38; docs/review.md): a brand that reviews held commissions in its own
tools releases or rejects one with its developer key. Built as cancel is: a small view on the shared keyed
base (attribution.api.views), the contract in attribution.contract.serializers.review, the service in
attribution.review.decisions, the answers in attribution.outcomes, the schema in attribution.api.schema."""

from drf_spectacular.utils import extend_schema

from attribution.api import schema
from attribution.api.views import _KeyedEventView
from attribution.outcomes import Outcome
from attribution.outcomes.endpoints import Endpoint
from attribution.review import decisions


@extend_schema(methods=["POST"], **schema.REVIEW)
class ReviewView(_KeyedEventView):
    """POST /api/Affiliates/review."""

    endpoint = Endpoint.REVIEW
    database_failure = Outcome.HANDLER_ERROR
    # A review that failed is not kept for replay: nothing was decided, and the brand sends it again (a
    # decision already taken answers not_held). Its outcome row is written as any other's.
    replayable = False

    def handle(self, request, payload, received_at, receipt):
        return decisions.review_order(
            key=request.auth,
            payload=payload,
            received_at=received_at,
            request_id=getattr(request._request, "request_id", ""),
            receipt=receipt,
        )
