"""The reconciliation API (docs/reconciliation.md), with the developer key as for cancel and update:

POST /api/Affiliates/reconciliations                 upload a CSV book (text/csv, or multipart `file`): 201
GET  /api/Affiliates/reconciliations/<id>            the summary and its rows, 1,000 a page (?page=)
POST /api/Affiliates/reconciliations/<id>/apply      make the changes, once

Another brand's run is a 404 on every path. The body is read here, streamed to a temporary file (never
held whole in memory) up to formats.MAX_BYTES; the file's reading is attribution.reconciliation.formats'.
"""

import tempfile
from contextlib import contextmanager

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from attribution.api import throttles
from attribution.api.access import AlwaysJSON, KeyRequired
from attribution.models import Reconciliation
from attribution.outcomes import Outcome, envelope
from brands.auth import DeveloperKeyAuthentication

from . import applying, matching, summary
from .formats import MAX_BYTES, BookError

CHUNK = 64 * 1024
MULTIPART_OVERHEAD = 64 * 1024  # the form's own bytes around the file


def refusal(text: str, status: int = 400) -> Response:
    return Response(envelope(success=False, outcome=Outcome.INVALID_PARAMS, text=text), status=status)


def too_large() -> BookError:
    return BookError(
        f"The file is larger than {MAX_BYTES // (1024 * 1024)} MB. Fix: upload it in parts, a month at a time.",
        status=413,
    )


@contextmanager
def received_book(request):
    """The uploaded CSV as a binary file and its name: a multipart `file`, or the body itself."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    if length.isdigit() and int(length) > MAX_BYTES + MULTIPART_OVERHEAD:
        raise too_large()
    if request.content_type == "multipart/form-data":
        upload = request.FILES.get("file")
        if upload is None:
            raise BookError(
                "Send the CSV in the multipart field named file, or as the body with Content-Type text/csv."
            )
        if upload.size > MAX_BYTES:
            raise too_large()
        upload.seek(0)
        yield upload.file, upload.name or ""
        return
    with tempfile.SpooledTemporaryFile(max_size=1024 * 1024) as spooled:
        kept = 0
        while chunk := request.read(CHUNK):
            kept += len(chunk)
            if kept > MAX_BYTES:
                raise too_large()
            spooled.write(chunk)
        spooled.seek(0)
        yield spooled, request.GET.get("filename", "")


def options_of(request) -> matching.Options:
    values = request.POST if request.content_type == "multipart/form-data" else request.GET
    return matching.Options(
        order_id_column=(values.get("order_id_column") or "").strip(),
        amount_column=(values.get("amount_column") or "").strip(),
    )


class _ReconciliationView(KeyRequired, APIView):
    authentication_classes = [DeveloperKeyAuthentication]
    permission_classes: list = []
    throttle_classes = [throttles.PerDeveloperKeyThrottle]
    content_negotiation_class = AlwaysJSON
    parser_classes: list = []  # the CSV body is streamed by received_book, never parsed whole

    def run_of(self, pk) -> Reconciliation | None:
        return Reconciliation.objects.filter(pk=pk, brand_id=self.request.auth.brand_id).first()

    @staticmethod
    def not_found(pk) -> Response:
        return Response(
            envelope(
                success=False, outcome=Outcome.NOT_FOUND, text=f"Your brand has no reconciliation {pk}."
            ),
            status=404,
        )


_RUN = OpenApiTypes.OBJECT


class ReconciliationsView(_ReconciliationView):
    @extend_schema(
        summary="Upload an order book (CSV) to reconcile",
        request={"text/csv": OpenApiTypes.STR, "multipart/form-data": OpenApiTypes.OBJECT},
        parameters=[
            OpenApiParameter(
                "order_id_column", str, description="Shopify: id or name (default: whichever matches)"
            ),
            OpenApiParameter("amount_column", str, description="Shopify: subtotal (default) or total"),
        ],
        responses={201: _RUN, 400: _RUN, 401: _RUN, 413: _RUN, 429: _RUN},
    )
    def post(self, request):
        key = request.auth
        if not key.brand_is_active:
            return refusal("The brand of this developer key is inactive.")
        try:
            with received_book(request._request) as (file, filename):
                run = matching.reconcile(
                    brand=key.brand,
                    file=file,
                    filename=filename,
                    key_prefix=key.prefix,
                    options=options_of(request._request),
                )
        except BookError as exc:
            return refusal(exc.message, exc.status)
        return Response({"success": True, "reconciliation": summary.summary(run)}, status=201)


class ReconciliationView(_ReconciliationView):
    @extend_schema(
        summary="A reconciliation and its rows",
        parameters=[
            OpenApiParameter("page", int, description="1,000 rows a page"),
            OpenApiParameter("status", str, description="only the rows of one category"),
        ],
        responses={200: _RUN, 400: _RUN, 401: _RUN, 404: _RUN, 429: _RUN},
    )
    def get(self, request, pk):
        run = self.run_of(pk)
        if run is None:
            return self.not_found(pk)
        page = request.GET.get("page", "1")
        status = request.GET.get("status", "")
        if not page.isdigit() or int(page) < 1:
            return refusal("page must be a whole number from 1.")
        if status and status not in matching.Status.values:
            return refusal(f"status must be one of {', '.join(matching.Status.values)}.")
        rows = run.rows.filter(status=status) if status else run.rows.all()
        return Response(
            {
                "success": True,
                "reconciliation": {
                    **summary.summary(run),
                    "page": int(page),
                    "pages": summary.pages(run, rows),
                    "rows": summary.page_of_rows(run, int(page), status=status),
                },
            }
        )


class ApplyView(_ReconciliationView):
    @extend_schema(
        summary="Apply a reconciliation's changes, once", request=None, responses={200: _RUN, 401: _RUN, 404: _RUN, 429: _RUN}
    )
    def post(self, request, pk):
        run = self.run_of(pk)
        if run is None:
            return self.not_found(pk)
        applied = applying.apply(
            run, request_id=getattr(request._request, "request_id", ""), key_prefix=request.auth.prefix
        )
        return Response(
            {
                "success": True,
                "message": applied_message(applied),
                "applied": True,
                # What this call changed: nothing when the run had been applied before.
                "changes": {"created": 0, "updated": 0, "cancelled": 0}
                if applied.already
                else applied.run.changes,
                "reconciliation": summary.summary(applied.run),
            }
        )


def applied_message(applied: applying.Applied) -> str:
    run = applied.run
    if applied.already:
        return f"Reconciliation {run.pk} was already applied on {run.applied_at:%Y-%m-%d %H:%M} UTC; nothing changed."
    c = run.changes
    return (
        f"Reconciliation {run.pk} applied: {c['created']} order(s) created, {c['updated']} amount(s) updated, "
        f"{c['cancelled']} commission(s) cancelled."
    )
