"""One small view per endpoint on a shared base that answers in the envelope of docs/api.md and records
the outcome of every request in one place (`finalize_response` sees every answer, errors included).
"""

import logging

from django.db import DatabaseError
from django.http import JsonResponse, QueryDict
from django.utils import timezone
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.request import Empty
from rest_framework.response import Response
from rest_framework.views import APIView

from attribution.api import reads, schema
from attribution.contract.serializers import OrderReadSerializer
from attribution.durability import faults
from attribution.http import throttles
from attribution.http.access import AlwaysJSON, KeyRequired
from attribution.orders import changes
from attribution.orders.confirmation import confirm_order
from attribution.orders.event_brand import brand_id_of_order_event
from attribution.outcomes import Outcome, Result, envelope, say
from attribution.outcomes.endpoints import Endpoint
from attribution.parsing import (
    EMPTY_BODY,
    BodyTooLarge,
    StrictJSONParser,
    holds_unstorable_text,
    read_chunked_body,
    shown_order_id,
)
from brands.auth import DeveloperKeyAuthentication
from health.log.writer import FAULTS, Receipt

logger = logging.getLogger(__name__)


def _framework_answer(exc) -> tuple[Outcome, str, int]:
    """Outcome code, sentence and status for an exception raised by the framework, not a service."""
    if isinstance(exc, exceptions.NotAuthenticated):
        return Outcome.UNAUTHORIZED, say("auth.missing"), 401
    if isinstance(exc, exceptions.AuthenticationFailed):
        # brands.auth names why with a code (malformed, unknown_key, expired_key); the sentence is ours.
        return Outcome.UNAUTHORIZED, say(f"auth.{exc.get_codes()}"), 401
    if isinstance(exc, exceptions.Throttled):
        return Outcome.RATE_LIMITED, say("rate_limited", seconds=exc.wait or 1), 429
    if isinstance(exc, BodyTooLarge):
        return Outcome.INVALID_PARAMS, say("body.too_large"), 413
    if isinstance(exc, exceptions.ParseError):
        return Outcome.INVALID_PARAMS, say("body.unreadable", problem=exc.detail), 400
    if isinstance(exc, exceptions.MethodNotAllowed):
        return Outcome.METHOD_NOT_ALLOWED, str(exc.detail), 405
    if isinstance(exc, exceptions.NotFound):
        return Outcome.NOT_FOUND, str(exc.detail), 404
    return Outcome.HANDLER_ERROR, "", 500


# The methods an event endpoint answers, in the Allow header of each answer.
ALLOWED_METHODS = "POST, OPTIONS"


class EventView(APIView):
    """Base of the three event endpoints: parse, call one service, answer, record."""

    endpoint: str = ""
    # The outcome when the database cannot be reached: cancel's interface has no insert_failed.
    database_failure = Outcome.INSERT_FAILED
    # A request that met a fault on our side is kept in the spool for the replay to run again.
    replayable = True
    parser_classes = [StrictJSONParser]
    content_negotiation_class = AlwaysJSON
    authentication_classes: list = []
    permission_classes: list = []
    throttle_classes = [throttles.PerClientAndBrandThrottle]

    @property
    def default_response_headers(self):
        # DRF's, whose Allow header it works out for every answer by probing the view for eight method
        # names (~10k instructions of an order confirmation).
        return {"Allow": ALLOWED_METHODS}

    def initialize_request(self, request, *args, **kwargs):
        read_chunked_body(request)
        request = super().initialize_request(request, *args, **kwargs)
        # What the parser (raw_body, body_parsed), the key's authentication (event_key, failed_key) and
        # initial() (body_error) note on the request, unset until they do. DRF's Request looks an attribute
        # it lacks up on Django's request first: each one read unset raised twice, 5 reads per order.
        request.raw_body = request.event_key = request.failed_key = request.body_error = None
        request.body_parsed = False
        return request

    def initial(self, request, *args, **kwargs):
        # A wrong method is not an event: refuse it before authentication could answer 401.
        method = request.method  # read through DRF's fallback to Django's request: once
        if method not in ("POST", "OPTIONS"):
            raise exceptions.MethodNotAllowed(method)
        if method == "OPTIONS":
            return  # describes the endpoint; nothing to authenticate or throttle
        # Receipt time before authentication and throttling, so a refused request is logged as it came.
        request.event_received_at = timezone.now()
        try:  # read the body first: the order confirmation's limit is keyed by the brand it names
            _ = request.data
        except exceptions.ParseError as exc:  # answered once the throttles let the request through
            request.body_error = exc
        super().initial(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        if getattr(request, "body_error", None) is not None:
            raise request.body_error
        payload = request.data
        if getattr(request, "raw_body", None) is None:
            # DRF hands a body of zero bytes over as {} without calling the parser.
            raise exceptions.ParseError(EMPTY_BODY)
        # The service writes the outcome row with its own rows when it can (one statement on PostgreSQL).
        result = self.handle(request, payload, request.event_received_at, self._receipt(request))
        return self.answer(result)

    def options(self, request, *args, **kwargs):
        """Plain OPTIONS (a CORS preflight is answered by the middleware): what to send here, in the envelope."""
        return Response(
            envelope(success=True, outcome=Outcome.OPTIONS, text=say("options")),
            headers={"Allow": ALLOWED_METHODS},
        )

    def handle(self, request, payload, received_at, receipt: Receipt) -> Result:
        raise NotImplementedError

    def _receipt(self, request) -> Receipt:
        """The request as its outcome row keeps it, whatever the result (health.log.writer.Receipt)."""
        key = getattr(request, "event_key", None)
        return Receipt(
            endpoint=self.endpoint,
            received_at=getattr(request, "event_received_at", None) or timezone.now(),
            request_id=getattr(request._request, "request_id", ""),
            body=getattr(request, "raw_body", None),
            body_parsed=getattr(request, "body_parsed", False),
            key_prefix=key.prefix
            if key is not None
            else getattr(getattr(request, "failed_key", None), "prefix", ""),
        )

    def answer(self, result: Result, headers=None) -> Response:
        response = Response(result.body(), status=result.http_status, headers=headers)
        response.event_result = result
        return response

    def handle_exception(self, exc):
        outcome, text, status = _framework_answer(exc)
        if outcome == Outcome.HANDLER_ERROR:
            request_id = getattr(self.request, "request_id", "")
            if isinstance(exc, DatabaseError) and self.database_failure == Outcome.INSERT_FAILED:
                logger.exception("database unavailable", extra={"request_id": request_id})
                return self.answer(Result(Outcome.INSERT_FAILED, say("insert_failed")))
            logger.exception("handler error", extra={"request_id": request_id})
            return self.answer(Result(Outcome.HANDLER_ERROR, say("handler_error")))
        if status == 405:
            return Response(envelope(success=False, outcome=outcome, text=text), status=405)
        headers = {}
        if isinstance(exc, exceptions.Throttled) and exc.wait:
            headers["Retry-After"] = f"{int(exc.wait) + 1}"
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            headers["WWW-Authenticate"] = self.get_authenticate_header(self.request) or "Bearer"
        result = Result(outcome, text, status=status)
        failed_key = getattr(self.request, "failed_key", None)
        if failed_key is not None:
            result.brand_id = failed_key.brand_id
        return self.answer(result, headers=headers)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        result = getattr(response, "event_result", None)
        if result is not None and request.method == "POST":
            self._record(request, result)
        return response

    def _record(self, request, result: Result) -> None:
        """Write the outcome log row, unless the service wrote it with its own rows; spool what the database
        could not take (attribution.durability.spool)."""
        key = getattr(request, "event_key", None)
        if result.brand_id is None and key is not None:
            result.brand_id = key.brand_id
        request._request.event_endpoint = self.endpoint
        request._request.event_brand_id = result.brand_id
        request._request.event_outcome = str(result.outcome)
        if result.recorded:
            return
        if request._full_data is Empty:
            try:  # a request refused before its body was read (401, 429) is logged with its body too
                _ = request.data
            except Exception:  # noqa: BLE001  (the answer is already decided; the log keeps the raw preview)
                pass
        # After a parse error DRF leaves an empty QueryDict: log the raw preview instead.
        data = request._full_data
        data = data if isinstance(data, dict | list) and not isinstance(data, QueryDict) else None
        if not result.order_id and isinstance(data, dict):
            result.order_id = _order_id_for_log(data)
        if result.outcome == Outcome.RATE_LIMITED and not getattr(request._request, "record_refusal", True):
            return  # one refusal per limit window is recorded (attribution.http.throttles)
        receipt = self._receipt(request)
        event = receipt.event(result)
        if not throttles.keep_event_row(request, result, data, endpoint=self.endpoint, at=event.received_at):
            return  # an order confirmation of no brand over its address's limit: counted per host instead
        if result.outcome in FAULTS and self.replayable:
            faults.spool_and_record(
                event,
                body=getattr(request, "raw_body", b"") or b"",
                authorization=request.META.get("HTTP_AUTHORIZATION", ""),
                brand_id=result.brand_id,
            )
        else:
            faults.record_or_keep(event)


def _order_id_for_log(data: dict) -> str:
    """The order id the body names (an order confirmation's orderId, a change's order_id), as shown."""
    return next(filter(None, (shown_order_id(data.get(name)) for name in ("orderId", "order_id"))), "")


@extend_schema(methods=["POST"], **schema.ORDER_CONFIRMATION)
class OrderConfirmationView(EventView):
    """POST /api/order_confirmation: no authentication; the brand comes from page_url or domain."""

    endpoint = Endpoint.ORDER_CONFIRMATION

    def perform_authentication(self, request):
        """Nothing to authenticate: the brand comes from the body. DRF's own step would find no
        authentication class and note an anonymous user (~30k instructions per order); request.user
        still answers that, lazily, should anything read it."""

    def handle(self, request, payload, received_at, receipt):
        return confirm_order(payload=payload, received_at=received_at, receipt=receipt)

    def finalize_response(self, request, response, *args, **kwargs):
        result = getattr(response, "event_result", None)
        if result is not None and result.brand_id is None and request.method == "POST":
            # A request the service never judged (handler_error, 429) still shows in its brand's health view.
            result.brand_id = _brand_id_of_body(request)
        return super().finalize_response(request, response, *args, **kwargs)


def _brand_id_of_body(request) -> int | None:
    try:
        return brand_id_of_order_event(request.data)
    except Exception:  # noqa: BLE001  (the answer is decided; a failing lookup only costs the brand column)
        logger.warning("brand lookup for the outcome record failed", exc_info=True)
        return None


class _KeyedEventView(KeyRequired, EventView):
    authentication_classes = [DeveloperKeyAuthentication]
    throttle_classes = [throttles.PerDeveloperKeyThrottle]


@extend_schema(methods=["POST"], **schema.CANCEL)
class CancelView(_KeyedEventView):
    """POST /api/Affiliates/cancel."""

    endpoint = Endpoint.CANCEL
    database_failure = Outcome.HANDLER_ERROR

    def handle(self, request, payload, received_at, receipt):
        return changes.cancel_commission(
            key=request.auth,
            payload=payload,
            received_at=received_at,
            request_id=getattr(request._request, "request_id", ""),
            receipt=receipt,
        )


@extend_schema(methods=["POST"], **schema.UPDATE)
class UpdateView(_KeyedEventView):
    """POST /api/Affiliates/update."""

    endpoint = Endpoint.UPDATE

    def handle(self, request, payload, received_at, receipt):
        return changes.update_commission(
            key=request.auth,
            payload=payload,
            received_at=received_at,
            request_id=getattr(request._request, "request_id", ""),
            receipt=receipt,
        )


class OrderReadView(KeyRequired, APIView):
    """GET /api/Affiliates/orders/<order_id>: a brand reconciles its own order. Records nothing."""

    authentication_classes = [DeveloperKeyAuthentication]
    permission_classes: list = []
    throttle_classes = [throttles.PerDeveloperKeyThrottle]
    content_negotiation_class = AlwaysJSON

    @extend_schema(**schema.ORDER_READ)
    def get(self, request, order_id):
        test = request.query_params.get("test")
        checked = OrderReadSerializer.check({"order_id": order_id, "test": test})
        # test is the one rule that refuses; the schema's maxLength holds for it as sent
        if checked.refusal is not None or len(test or "") > OrderReadSerializer.TEST_MAX_LENGTH:
            return Response(
                envelope(success=False, outcome=Outcome.INVALID_PARAMS, text=say("read.test_flag")),
                status=400,
            )
        is_test, order_id = checked.values["test"], checked.values["order_id"]
        key = request.auth
        if not key.brand_is_active:
            return Response(
                envelope(success=False, outcome=Outcome.UNRESOLVED_DOMAIN, text=say("read.brand_inactive")),
                status=400,
            )
        found = (
            None  # no order can hold what no database can store (%00)
            if holds_unstorable_text(order_id)
            else reads.order_for_reconciliation(brand_id=key.brand_id, order_id=order_id, is_test=is_test)
        )
        if found is None:
            return Response(
                envelope(
                    success=False,
                    outcome=Outcome.ORDER_NOT_FOUND,
                    text=say("read.not_found", namespace="test" if is_test else "live", order_id=order_id),
                ),
                status=404,
            )
        return Response({"success": True, "outcome": Outcome.FOUND, **found})


def api_exception_handler(exc, context):
    """Framework errors of views outside EventView still answer in the envelope."""
    outcome, text, status = _framework_answer(exc)
    if status == 500:
        logger.exception("api error", exc_info=exc)
        text = say("server_error")
    headers = {}
    if status == 401:
        headers["WWW-Authenticate"] = context["view"].get_authenticate_header(context["request"]) or "Bearer"
    if status == 429 and getattr(exc, "wait", None):
        headers["Retry-After"] = f"{int(exc.wait) + 1}"
    return Response(
        envelope(success=False, outcome=str(outcome), text=text),
        status=status,
        headers=headers,
    )


def _plain_json(body: dict, status: int) -> JsonResponse:
    """An answer outside DRF, written as compactly as DRF's renderer writes every other answer."""
    return JsonResponse(body, status=status, json_dumps_params={"separators": (",", ":")})


@csrf_exempt  # it changes nothing; a POST with a mistyped path must get this 404, not a CSRF page
def api_not_found(request, *args, **kwargs):
    """Unknown paths under /api/ answer JSON too."""
    return _plain_json(
        envelope(success=False, outcome=Outcome.NOT_FOUND, text=say("not_found", path=request.path)), 404
    )


def server_error(request, *args, **kwargs):
    """Django's last resort (handler500): JSON under /api/, the plain error page elsewhere."""
    if request.path.startswith("/api/"):
        return _plain_json(
            envelope(success=False, outcome=Outcome.HANDLER_ERROR, text=say("server_error")), 500
        )
    return defaults.server_error(request)
