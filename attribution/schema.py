"""OpenAPI description of the API (served at /api/schema/, browsable at /api/docs/).

Request bodies are parsed by attribution.parsing (the field formats accept more than one JSON type for
some fields), so the serializers here document the contract; they do not validate.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from .outcomes import OUTCOMES, Outcome


class DeveloperKeyScheme(OpenApiAuthenticationExtension):
    target_class = "brands.auth.DeveloperKeyAuthentication"
    name = "developerKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Authorization: Bearer <DEVELOPER_API_KEY>, issued by your account manager.",
        }


def _codes(*outcomes: Outcome) -> str:
    return ", ".join(f"`{o}` ({OUTCOMES[o].status})" for o in outcomes)


_ORDER_ID = 'A string (trimmed, 1-255 characters) or an integer; 123 and "123" are the same order.'
_AMOUNT = 'A JSON number or a string holding a plain decimal number such as "59.90".'

Envelope = inline_serializer(
    name="Envelope",
    fields={
        "success": serializers.BooleanField(),
        "outcome": serializers.ChoiceField(choices=[str(o) for o in Outcome]),
        "message": serializers.CharField(required=False, help_text="On success: what happened."),
        "error": serializers.CharField(required=False, help_text="On failure: the reason and the fix."),
    },
)

_common_failures = {
    400: OpenApiResponse(
        Envelope, description="success false: the event was rejected; `error` says how to fix it."
    ),
    413: OpenApiResponse(Envelope, description="Body over 64 KiB (`invalid_params`)."),
    429: OpenApiResponse(Envelope, description="`rate_limited`; see Retry-After."),
}

ORDER_CONFIRMATION = dict(
    summary="Record an order confirmation",
    description="No authentication: the brand is resolved from `domain` or `page_url`. Outcomes: "
    + _codes(
        Outcome.TRACKED,
        Outcome.NO_ATTRIBUTION,
        Outcome.DUPLICATE_ORDER,
        Outcome.SHOPIFY_HANDOFF,
        Outcome.BLACKLISTED_CODE,
        Outcome.EXPIRED_CLICK,
        Outcome.CROSS_BRAND_CLICK,
        Outcome.PROPERTY_MISMATCH,
        Outcome.UNREGISTERED_PROPERTY,
        Outcome.CLICK_NOT_FOUND,
        Outcome.BANNED_USER,
        Outcome.INVALID_ORDER_AMOUNT,
        Outcome.INVALID_ORDER_ID,
        Outcome.MALFORMED_CLICK_ID,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNREGISTERED_CODE,
        Outcome.INSERT_FAILED,
        Outcome.HANDLER_ERROR,
        Outcome.INVALID_PARAMS,
    ),
    request=inline_serializer(
        name="OrderConfirmation",
        fields={
            "orderAmount": serializers.CharField(help_text=_AMOUNT + " Greater than 0."),
            "orderId": serializers.CharField(help_text=_ORDER_ID),
            "currency": serializers.CharField(help_text="ISO 4217 code, case-insensitive."),
            "page_url": serializers.CharField(help_text="URL of the page sending the event."),
            "clickId": serializers.CharField(
                required=False, help_text="The sms_click_id cookie, exactly as stored."
            ),
            "code": serializers.CharField(required=False, help_text='Discount code; "" means none.'),
            "test": serializers.BooleanField(required=False),
            "is_returning_customer": serializers.BooleanField(required=False),
            "domain": serializers.CharField(required=False, help_text="Overrides page_url's host."),
            "returnWindowClosesAt": serializers.CharField(
                required=False, help_text="ISO 8601 (UTC without offset) or Unix epoch seconds/milliseconds."
            ),
            "customer_email": serializers.EmailField(
                required=False, help_text="Hashed on arrival, never stored."
            ),
        },
    ),
    responses={
        200: OpenApiResponse(Envelope, description="success true: the event was recorded."),
        **_common_failures,
    },
    auth=[],
    examples=[
        OpenApiExample(
            "A checkout page",
            request_only=True,
            value={
                "orderAmount": "59.90",
                "orderId": "A-1001",
                "currency": "USD",
                "page_url": "https://shop.example.com/checkout/thank-you",
                "clickId": "clk_0123456789abcdef0123456789abcdef",
                "code": "",
                "is_returning_customer": False,
            },
        )
    ],
)


def _keyed_body(name: str, **fields):
    """A cancel or update body: its own fields, then the optional domain and test both take."""
    return inline_serializer(
        name=name,
        fields={
            **fields,
            "domain": serializers.CharField(required=False, help_text="One of your registered properties."),
            "test": serializers.BooleanField(required=False, help_text="Act on test orders."),
        },
    )


_keyed_failures = {
    **_common_failures,
    401: OpenApiResponse(Envelope, description="`unauthorized`: key missing, malformed, unknown or revoked."),
}

CANCEL = dict(
    summary="Cancel the commission of an order",
    description="Outcomes: "
    + _codes(
        Outcome.TRACKED,
        Outcome.ORDER_NOT_FOUND,
        Outcome.ALREADY_CANCELLED,
        Outcome.INVALID_PARAMS,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNAUTHORIZED,
        Outcome.HANDLER_ERROR,
    ),
    request=_keyed_body("Cancellation", order_id=serializers.CharField(help_text=_ORDER_ID)),
    responses={200: Envelope, **_keyed_failures},
)

UPDATE = dict(
    summary="Update the amount of an order's commission",
    description="Outcomes: "
    + _codes(
        Outcome.TRACKED,
        Outcome.ORDER_NOT_FOUND,
        Outcome.ALREADY_CANCELLED,
        Outcome.INVALID_PARAMS,
        Outcome.INVALID_ORDER_AMOUNT,
        Outcome.UNRESOLVED_DOMAIN,
        Outcome.UNAUTHORIZED,
        Outcome.INSERT_FAILED,
        Outcome.HANDLER_ERROR,
    ),
    request=_keyed_body(
        "AmountUpdate",
        order_id=serializers.CharField(help_text=_ORDER_ID),
        new_order_amount=serializers.CharField(help_text=_AMOUNT + " 0 or more."),
        currency=serializers.CharField(help_text="The order's ISO 4217 currency."),
    ),
    responses={200: Envelope, **_keyed_failures},
)

ORDER_READ = dict(
    summary="Read one of your orders and its commission (reconciliation)",
    parameters=[
        OpenApiParameter(
            "order_id",
            str,
            OpenApiParameter.PATH,
            description="The order id as sent on the order confirmation, URL-encoded; slashes may stay.",
        ),
        OpenApiParameter("test", bool, description="Read the test namespace."),
    ],
    responses={
        200: inline_serializer(
            name="OrderReconciliation",
            fields={
                "success": serializers.BooleanField(),
                "outcome": serializers.CharField(),
                "order": serializers.DictField(),
                "commission": serializers.DictField(allow_null=True),
            },
        ),
        401: Envelope,
        404: OpenApiResponse(Envelope, description="`order_not_found`: unknown, or another brand's."),
    },
)


def document_paths_without_trailing_slash(endpoints, **kwargs):
    """The interface's paths have no trailing slash; the URL patterns accept one too (docs/decisions.md, "Paths")."""
    return [
        (path.rstrip("/") if path.startswith("/api/") and path != "/api/" else path, regex, method, callback)
        for path, regex, method, callback in endpoints
    ]
