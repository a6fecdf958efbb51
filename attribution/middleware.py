"""A request id for every request: in the answer's X-Request-ID header, the logs and the outcome log."""

import logging
import re
import time
import uuid

logger = logging.getLogger("attribution.requests")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{8,36}")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        request.request_id = incoming if _SAFE_ID.fullmatch(incoming) else uuid.uuid4().hex
        started = time.perf_counter()
        response = self.get_response(request)
        response["X-Request-ID"] = request.request_id
        if request.path.startswith("/api/"):
            logger.info(
                "request",
                extra={
                    "request_id": request.request_id,
                    "method": request.method,
                    "path": request.path,
                    "endpoint": getattr(request, "event_endpoint", ""),
                    "brand_id": getattr(request, "event_brand_id", None),
                    "outcome": getattr(request, "event_outcome", ""),
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )
        return response
