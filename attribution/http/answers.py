"""The answers and headers the keyed endpoints share in the OpenAPI description: the envelope of docs/api.md at
each HTTP status, and the request id, Retry-After and WWW-Authenticate headers. The event API's schema
(attribution.api.schema) and the reconciliation's (attribution.reconciliation.schema) both build on them."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from attribution.outcomes import Outcome


def _codes(outcomes) -> str:
    return ", ".join(f"`{outcome}`" for outcome in outcomes)


_WHAT_A_STATUS_MEANS = {
    200: "success true: received; `message` says what happened.",
    400: "success false: rejected and not stored; `error` says why and what to change.",
    401: "success false: the developer key is missing, malformed, unknown or revoked.",
    404: "success false: nothing of yours at this path.",
    413: "success false: the body is larger than 64 KiB.",
    414: "success false: the request line (path and query string) is longer than 8 KB; refused in front of the "
    "service, nothing recorded.",
    429: "success false: too many requests; retry after the seconds in Retry-After.",
    500: "success false: a fault on the service side; nothing was changed.",
}


def answer(status: int, outcomes: list[Outcome]) -> OpenApiResponse:
    """The envelope of docs/api.md as it is for `status`: its `outcome` one of `outcomes`."""
    success = status < 400
    text = "message" if success else "error"
    return OpenApiResponse(
        response={
            "type": "object",
            "required": ["success", "outcome", text],
            "properties": {
                "success": {"type": "boolean", "enum": [success]},
                "outcome": {"type": "string", "enum": [str(outcome) for outcome in outcomes]},
                text: {"type": "string"},
            },
        },
        description=f"{_WHAT_A_STATUS_MEANS[status]} Outcomes: {_codes(outcomes)}.",
    )


REQUEST_ID = OpenApiParameter(
    "X-Request-ID",
    str,
    OpenApiParameter.HEADER,
    response=True,
    description="The request's id, also on its row in the outcome log (docs/api.md, Request ids).",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After", int, OpenApiParameter.HEADER, response=[429], description="Seconds to wait."
)
WWW_AUTHENTICATE = OpenApiParameter(
    "WWW-Authenticate", str, OpenApiParameter.HEADER, response=[401], description='Bearer realm="api", …'
)


KEYED = [REQUEST_ID, RETRY_AFTER, WWW_AUTHENTICATE]  # the headers of every answer to a developer key


def request_line_limit(result, generator, request, public):
    """Postprocessing: every operation may be answered 414 before the service reads the request, by nginx or
    gunicorn in front of it (config/serving.py): a request line (path and query string) over 8 KB."""
    refused = answer(414, [Outcome.INVALID_PARAMS])
    documented = {
        "description": refused.description,
        "content": {"application/json": {"schema": refused.response}},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("414", documented)
    return result
