"""OpenAPI description of the API (served at /api/schema/, browsable at /api/docs/).

The request bodies and parameters come from attribution.contract.serializers, whose fields validate them; this
module adds what a serializer cannot say: the answers of each endpoint (for each HTTP status, exactly
the outcome codes it can carry), the examples, and the tags.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from attribution.contract import examples
from attribution.contract.serializers import (
    AmountUpdateSerializer,
    CancellationSerializer,
    OrderConfirmationSerializer,
    OrderReadSerializer,
    ReviewSerializer,
)
from attribution.http.answers import KEYED, REQUEST_ID, RETRY_AFTER, answer
from attribution.models import Rule
from attribution.orders.trace import StepKind, StepResult
from attribution.outcomes import OUTCOMES, Outcome

EVENTS = "Order events"
READ_API = "Read API"


class DeveloperKeyScheme(OpenApiAuthenticationExtension):
    target_class = "brands.auth.DeveloperKeyAuthentication"
    name = "developerKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Authorization: Bearer <DEVELOPER_API_KEY>, issued by your account manager.",
        }


class FieldRuleSchema(OpenApiSerializerFieldExtension):
    """A field of attribution.contract.serializers documents exactly what its rule accepts."""

    target_class = "attribution.contract.serializers.fields.RuleField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        return self.target.openapi_schema()


def _event_answers(*outcomes: Outcome) -> dict:
    """An event endpoint's answers: each outcome at its HTTP status, and 413 for an oversized body."""
    by_status: dict[int, list[Outcome]] = {413: [Outcome.INVALID_PARAMS]}
    for outcome in outcomes:
        by_status.setdefault(OUTCOMES[outcome].status, []).append(outcome)
    return {status: answer(status, by_status[status]) for status in sorted(by_status)}


def _example(outcome: Outcome, what: str, value, *, name: str = "") -> OpenApiExample:
    """A request example whose summary names the outcome it gets (tests/attribution/contract/test_request_schema.py
    sends each one); `name` tells apart two examples of one outcome."""
    return OpenApiExample(name or str(outcome), summary=f"{outcome}: {what}", value=value, request_only=True)


ORDER_CONFIRMATION = dict(
    summary="Record an order confirmation",
    description="No authentication: the brand is resolved from `domain` or `page_url`. The fields are "
    "judged in the decision order of docs/api.md; the first that fails decides the outcome.",
    tags=[EVENTS],
    request={"application/json": OrderConfirmationSerializer},
    responses=_event_answers(
        Outcome.TRACKED,
        Outcome.NO_ATTRIBUTION,
        Outcome.SHOPIFY_HANDOFF,
        Outcome.BLACKLISTED_CODE,
        Outcome.EXPIRED_CLICK,
        Outcome.CROSS_BRAND_CLICK,
        Outcome.PROPERTY_MISMATCH,
        Outcome.UNREGISTERED_PROPERTY,
        Outcome.BANNED_USER,
        Outcome.UNREGISTERED_CODE,
        Outcome.INSERT_FAILED,
        Outcome.HANDLER_ERROR,
        Outcome.DUPLICATE_ORDER,
        Outcome.CLICK_NOT_FOUND,
        Outcome.INVALID_ORDER_AMOUNT,
        Outcome.INVALID_ORDER_ID,
        Outcome.MALFORMED_CLICK_ID,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.INVALID_PARAMS,
        Outcome.RATE_LIMITED,
    ),
    parameters=[REQUEST_ID, RETRY_AFTER],
    auth=[],
    examples=[
        _example(
            Outcome.TRACKED,
            "a thank-you page with a creator's click",
            {
                "orderAmount": 59.9,
                "orderId": int(examples.TRACKED_ORDER),
                "currency": "USD",
                "page_url": examples.PAGE,
                "clickId": examples.CLICK,
                "is_returning_customer": False,
            },
        ),
        _example(
            Outcome.NO_ATTRIBUTION,
            "a direct order sent by your server, with the amount and id as strings",
            {
                "orderAmount": "120.00",
                "orderId": examples.DIRECT_ORDER,
                "currency": "eur",
                "page_url": examples.PAGE,
                "code": "",
                "returnWindowClosesAt": "2026-12-24T00:00:00Z",
            },
        ),
        _example(
            Outcome.TRACKED,
            "sent by your server with `domain` instead of `page_url`",
            {
                "orderAmount": 80,
                "orderId": examples.DOMAIN_ORDER,
                "currency": "USD",
                "domain": examples.HOST,
                "code": examples.CODE,
                "returnWindowClosesAt": "2026-12-24T00:00:00+01:00",
            },
            name="tracked_by_domain",
        ),
    ],
)

CANCEL = dict(
    summary="Cancel the commission of an order",
    description="Checked in this order: the key, the body, the required fields, `order_id`, `test`, the "
    "key's brand and `domain`, then the commission.",
    tags=[EVENTS],
    request={"application/json": CancellationSerializer},
    responses=_event_answers(
        Outcome.TRACKED,
        Outcome.ORDER_NOT_FOUND,
        Outcome.ALREADY_CANCELLED,
        Outcome.HANDLER_ERROR,
        Outcome.INVALID_PARAMS,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNAUTHORIZED,
        Outcome.RATE_LIMITED,
    ),
    parameters=KEYED,
    examples=[
        _example(
            Outcome.TRACKED,
            f"cancel the commission of order {examples.READ_ORDER}",
            {"order_id": int(examples.READ_ORDER)},
        )
    ],
)

UPDATE = dict(
    summary="Update the amount of an order's commission",
    description="Checked in this order: the key, the body, the required fields, `order_id`, "
    "`new_order_amount`, `currency`, `test`, the key's brand and `domain`, then the commission.",
    tags=[EVENTS],
    request={"application/json": AmountUpdateSerializer},
    responses=_event_answers(
        Outcome.TRACKED,
        Outcome.ORDER_NOT_FOUND,
        Outcome.ALREADY_CANCELLED,
        Outcome.INSERT_FAILED,
        Outcome.HANDLER_ERROR,
        Outcome.INVALID_PARAMS,
        Outcome.INVALID_ORDER_AMOUNT,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNAUTHORIZED,
        Outcome.RATE_LIMITED,
    ),
    parameters=KEYED,
    examples=[
        _example(
            Outcome.TRACKED,
            f"order {examples.UPDATE_ORDER}'s new total after a partial refund",
            {"order_id": int(examples.UPDATE_ORDER), "new_order_amount": 49.9, "currency": "USD"},
        )
    ],
)


# issue 38 (docs/review.md): a brand's decision on a held commission.
REVIEW = dict(
    summary="Release or reject a commission held for review",
    description="Checked in this order: the key, the body, `order_id`, `decision`, `note`, `test`, the key's "
    "brand, then the commission. A commission that is not held (never held, or already decided) answers "
    "`not_held`, a success: sending a decision twice changes nothing the second time.",
    tags=[EVENTS],
    request={"application/json": ReviewSerializer},
    responses=_event_answers(
        Outcome.RELEASED,
        Outcome.REJECTED,
        Outcome.NOT_HELD,
        Outcome.ORDER_NOT_FOUND,
        Outcome.HANDLER_ERROR,
        Outcome.INVALID_PARAMS,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNAUTHORIZED,
        Outcome.RATE_LIMITED,
    ),
    parameters=KEYED,
    examples=[
        _example(
            Outcome.NOT_HELD,
            f"release order {examples.READ_ORDER}'s commission, which no rule held",
            {
                "order_id": int(examples.READ_ORDER),
                "decision": "release",
                "note": "Checked: a real customer.",
            },
        )
    ],
)


def _read_parameters() -> list[OpenApiParameter]:
    """The read API's path and query parameters, from OrderReadSerializer's fields."""
    path, query = OrderReadSerializer.rules["order_id"], OrderReadSerializer.rules["test"]
    return [
        OpenApiParameter(
            "order_id",
            path.openapi_schema(),
            OpenApiParameter.PATH,
            description=path.help_text,
            examples=[
                OpenApiExample(
                    str(Outcome.FOUND),
                    summary=f"found: order {examples.READ_ORDER}",
                    value=examples.READ_ORDER,
                )
            ],
        ),
        OpenApiParameter(
            "test",
            {**query.openapi_schema(), "maxLength": OrderReadSerializer.TEST_MAX_LENGTH},
            OpenApiParameter.QUERY,
            description=query.help_text,
        ),
    ]


# The commission in the brand's reporting currency, locked when it was created (docs/currencies.md).
REPORTING = {
    "type": "object",
    "nullable": True,
    "description": "The commission converted into your reporting currency when it was created, at the ECB "
    "reference rates of the order's date (the last published on or before it), and never again: an amount "
    "update converts at the same rate. Null when its currency had no rate (see `reporting_reason`).",
    "required": ["amount", "currency", "rate", "rate_date", "source"],
    "properties": {
        "amount": {
            "type": "string",
            "description": "In the reporting currency's minor units, rounded once, half up.",
            "example": "22.34",
        },
        "currency": {
            "type": "string",
            "description": "Your reporting currency (ISO 4217).",
            "example": "USD",
        },
        "rate": {
            "type": "string",
            "description": "Units of the reporting currency per unit of the commission's, exactly as computed "
            '(through the euro: EUR->reporting / EUR->commission\'s currency; "1" for the same currency).',
            "example": "1.1172",
        },
        "rate_date": {
            "type": "string",
            "format": "date",
            "description": "The publication day of the rates used (a weekend order takes Friday's).",
        },
        "source": {
            "type": "string",
            "description": "`ECB`, or `same currency` when no rate was needed.",
            "example": "ECB",
        },
    },
}
REPORTING_REASON = {
    "type": "string",
    "nullable": True,
    "description": "Why `reporting` is null (no rate for the currency on or before the order's date); null "
    "when converted.",
}


ORDER_READ = dict(
    summary="Read one of your orders and its commission (reconciliation)",
    description="Records nothing in the outcome log.",
    tags=[READ_API],
    parameters=[*_read_parameters(), *KEYED],
    responses={
        200: OpenApiResponse(
            response={
                "type": "object",
                "required": ["success", "outcome", "order", "commission"],
                "properties": {
                    "success": {"type": "boolean", "enum": [True]},
                    "outcome": {"type": "string", "enum": [str(Outcome.FOUND)]},
                    "order": {
                        "type": "object",
                        "description": "The order as it was received, with `trace`: the signals its decision "
                        "consulted, in order (empty for an order that sent none).",
                        "properties": {
                            "trace": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "required": ["signal", "result", "detail"],
                                    "properties": {
                                        "signal": {"type": "string", "enum": [str(s) for s in StepKind]},
                                        "result": {
                                            "type": "string",
                                            "enum": [str(r) for r in StepResult] + list(Rule.values),
                                        },
                                        "detail": {"type": "string"},
                                    },
                                },
                            }
                        },
                    },
                    "commission": {
                        "type": "object",
                        "nullable": True,
                        "description": "Its commission now, with its history; null without one.",
                        "properties": {"reporting": REPORTING, "reporting_reason": REPORTING_REASON},
                    },
                },
            },
            description="success true: `found`; the fields are described in docs/api.md.",
        ),
        400: answer(400, [Outcome.INVALID_PARAMS, Outcome.UNRESOLVED_DOMAIN]),
        401: answer(401, [Outcome.UNAUTHORIZED]),
        # not_found: an order id no path can carry (empty, or one the URL patterns do not match).
        404: answer(404, [Outcome.ORDER_NOT_FOUND, Outcome.NOT_FOUND]),
        429: answer(429, [Outcome.RATE_LIMITED]),
        500: answer(500, [Outcome.HANDLER_ERROR]),
    },
)


def document_paths_without_trailing_slash(endpoints, **kwargs):
    """The interface's paths have no trailing slash; the URL patterns accept one too (docs/decisions.md, "Paths")."""
    return [
        (path.rstrip("/") if path.startswith("/api/") and path != "/api/" else path, regex, method, callback)
        for path, regex, method, callback in endpoints
    ]


def order_confirmation_component(result, generator, request, public):
    """Postprocessing of the order confirmation's body schema.

    - It needs `page_url` or `domain`, one of the two (docs/api.md, "Fields"), which a serializer's
      `required` list cannot say: anyOf says it.
    - Its fields show no example of their own. The operation's whole examples (above) are what Swagger and
      schemathesis send; tools also combine the fields' examples into requests of their own, once per anyOf
      branch, which repeat one order id and so rightly get duplicate_order the second time.
    """
    component = result.get("components", {}).get("schemas", {}).get("OrderConfirmation")
    if component is None:
        return result
    component["required"] = [name for name in component.get("required", []) if name != "page_url"]
    component["anyOf"] = [
        {"required": ["page_url"], "title": "page_url: the thank-you page's URL"},
        {"required": ["domain"], "title": "domain: the storefront's host, for server-side calls"},
    ]
    for field in component.get("properties", {}).values():
        field.pop("example", None)
    return result
