"""GET and PUT /api/Affiliates/commission_plan, POST /api/Affiliates/commission_plan/preview (issue 56;
docs/plans.md): a brand manages its commission plan as code with its developer key. The document is checked
whole by attribution.plans.document; a refusal is a 400 naming the field, and nothing is stored. These
calls record nothing in the outcome log (like the read API): the versions keep who made them and when."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from attribution.http import throttles
from attribution.http.access import AlwaysJSON, KeyRequired
from attribution.http.answers import KEYED, answer
from attribution.outcomes import Outcome, envelope, say
from attribution.plans import versions
from attribution.plans.document import Refused
from brands.auth import DeveloperKeyAuthentication
from brands.models import Brand

PLANS = "Commission plan"
EXAMPLE = {
    "currency": "USD",
    "base": {"after_discounts": True, "shipping": False, "tax": False},
    "default": {"percent": "10"},
    "rules": [
        {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
        {"name": "Returning customers", "when": {"customer": "returning"}, "percent": "5"},
    ],
    "minimum_order_amount": "20.00",
    "cap_per_order": "50.00",
    "tiers": [{"metric": "orders", "from": 10, "percent": "15", "retroactive": False}],
    "effective_from": "2026-12-01T00:00:00Z",
    "apply_to": "new_orders",
}
_AMOUNT = {"description": 'An amount in the plan\'s currency, 0 or more, as text ("20.00") or a number.'}
_DOCUMENT = {
    "type": "object",
    "description": "A commission plan document (docs/plans.md): `currency`, `base`, `default`, `rules` (the "
    "first that matches wins; a rule on skus, product_ids, collections or vendors is judged per line), "
    "`minimum_order_amount`, `cap_per_order`, `cap_per_creator_month`, `tiers`, `effective_from`, `apply_to` "
    "(new_orders or unpaid). Amounts and percents as text. Any other field is refused.",
    "required": ["currency"],
    "additionalProperties": False,
    "properties": {
        "currency": {"type": "string", "example": "USD"},
        "base": {"type": "object"},
        "default": {"type": "object"},
        "rules": {"type": "array", "maxItems": 200, "items": {"type": "object"}},
        "minimum_order_amount": _AMOUNT,
        "cap_per_order": _AMOUNT,
        "cap_per_creator_month": _AMOUNT,
        "tiers": {"type": "array", "items": {"type": "object"}},
        "effective_from": {
            "type": "string",
            "format": "date-time",
            "nullable": True,
            "description": "When the version takes effect; empty: when it is saved.",
        },
        "apply_to": {"type": "string", "enum": ["new_orders", "unpaid"]},
    },
}
_REFUSED = OpenApiResponse(
    response={
        "type": "object",
        "required": ["success", "outcome", "error"],
        "properties": {
            "success": {"type": "boolean", "enum": [False]},
            "outcome": {
                "type": "string",
                "enum": [str(Outcome.INVALID_PARAMS), str(Outcome.UNRESOLVED_DOMAIN)],
            },
            "error": {"type": "string"},
        },
    },
    description="invalid_params: the document is refused whole; `error` starts with the field "
    "(`rules[2].percent: must be between 0 and 100`). Nothing is stored. unresolved_domain: the key's brand "
    "is inactive.",
)
_FAILED = {
    400: _REFUSED,
    401: answer(401, [Outcome.UNAUTHORIZED]),
    429: answer(429, [Outcome.RATE_LIMITED]),
    500: answer(500, [Outcome.HANDLER_ERROR]),
}
_RE_PRICED = {
    "type": "object",
    "properties": {
        "commissions": {"type": "integer"},
        "difference": {"type": "string"},
        "currency": {"type": "string"},
        "not_converted": {"type": "integer"},
        "examples": {"type": "array", "items": {"type": "object"}},
    },
}


def _found(properties: dict, *, description: str | None = None) -> OpenApiResponse:
    """A plan endpoint's 200: the /api/ envelope's success and outcome, and `properties`."""
    envelope_fields = {
        "success": {"type": "boolean", "enum": [True]},
        "outcome": {"type": "string", "enum": [str(Outcome.FOUND)]},
    }
    return OpenApiResponse(
        response={"type": "object", "properties": {**envelope_fields, **properties}}, description=description
    )


class _PlanView(KeyRequired, APIView):
    authentication_classes = [DeveloperKeyAuthentication]
    permission_classes: list = []
    throttle_classes = [throttles.PerDeveloperKeyThrottle]
    content_negotiation_class = AlwaysJSON

    def brand(self, request) -> Brand | None:
        return Brand.objects.filter(pk=request.auth.brand_id, is_active=True).first()

    @staticmethod
    def refused(error: str, outcome: Outcome = Outcome.INVALID_PARAMS) -> Response:
        return Response(envelope(success=False, outcome=outcome, text=error), status=400)

    @staticmethod
    def made_by(request) -> str:
        return f"developer key {request.auth.prefix}"


class CommissionPlanView(_PlanView):
    """GET and PUT /api/Affiliates/commission_plan."""

    @extend_schema(
        summary="Read your commission plan and its versions",
        tags=[PLANS],
        parameters=[*KEYED],
        responses={
            200: _found(
                {
                    "plan": _DOCUMENT,
                    "version": {"type": "integer"},
                    "effective_from": {"type": "string", "format": "date-time", "nullable": True},
                    "versions": {"type": "array", "items": {"type": "object"}},
                }
            ),
            **_FAILED,
        },
    )
    def get(self, request):
        brand = self.brand(request)
        if brand is None:
            return self.refused(say("plans.brand_inactive"), Outcome.UNRESOLVED_DOMAIN)
        return Response({"success": True, "outcome": Outcome.FOUND, **versions.current(brand)})

    @extend_schema(
        summary="Store a new version of your commission plan",
        tags=[PLANS],
        parameters=[*KEYED],
        request={"application/json": _DOCUMENT},
        examples=[OpenApiExample("A plan", value=EXAMPLE, request_only=True)],
        responses={
            200: _found(
                {
                    "version": {"type": "integer"},
                    "re_priced": {"type": "object", "properties": {"commissions": {"type": "integer"}}},
                }
            ),
            **_FAILED,
        },
    )
    def put(self, request):
        brand = self.brand(request)
        if brand is None:
            return self.refused(say("plans.brand_inactive"), Outcome.UNRESOLVED_DOMAIN)
        try:
            number, re_priced = versions.save(
                brand=brand, document=request.data, at=timezone.now(), created_by=self.made_by(request)
            )
        except Refused as refusal:
            return self.refused(str(refusal))
        return Response(
            {
                "success": True,
                "outcome": Outcome.FOUND,
                "version": number,
                "re_priced": {"commissions": re_priced},
            }
        )


class CommissionPlanPreviewView(_PlanView):
    """POST /api/Affiliates/commission_plan/preview."""

    @extend_schema(
        summary="Preview a new version of your commission plan (stores nothing)",
        tags=[PLANS],
        parameters=[*KEYED],
        request={"application/json": _DOCUMENT},
        examples=[OpenApiExample("A plan", value={**EXAMPLE, "apply_to": "unpaid"}, request_only=True)],
        responses={
            200: _found(
                {
                    "version": {"type": "integer"},
                    "apply_to": {"type": "string"},
                    "re_priced": _RE_PRICED,
                },
                description="What PUT would do: the version it would make and, with apply_to unpaid, how many "
                "pending and held commissions would change and by how much in your reporting currency.",
            ),
            **_FAILED,
        },
    )
    def post(self, request):
        brand = self.brand(request)
        if brand is None:
            return self.refused(say("plans.brand_inactive"), Outcome.UNRESOLVED_DOMAIN)
        try:
            found = versions.preview(brand=brand, document=request.data, at=timezone.now())
        except Refused as refusal:
            return self.refused(str(refusal))
        return Response({"success": True, "outcome": Outcome.FOUND, **found.shown()})
