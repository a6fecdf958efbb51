"""The reconciliation API (docs/reconciliation.md), with the developer key as for cancel and update:

POST /api/Affiliates/reconciliations                 upload a CSV book (text/csv, or multipart `file`): 201
GET  /api/Affiliates/reconciliations/<id>            the summary and its rows, 1,000 a page (?page=)
POST /api/Affiliates/reconciliations/<id>/apply      make the changes, once

Another brand's run is a 404 on every path. The body is read here, streamed to a temporary file (never
held whole in memory) up to books.reader.MAX_BYTES; the file's reading is attribution.reconciliation.books'.
An upload or an apply writes no outcome row of its own: the run is the upload's record, and each change
an apply makes is an outcome row of the `reconciliation` endpoint (attribution.reconciliation.applying).
"""

import logging
import tempfile
from contextlib import contextmanager

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http.multipartparser import MultiPartParserError
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from attribution.http import throttles
from attribution.http.access import AlwaysJSON, KeyRequired
from attribution.models import Reconciliation
from attribution.outcomes import Outcome, envelope, say
from attribution.parsing import drain
from brands.auth import DeveloperKeyAuthentication

from . import applying, runs, schema, summary
from .books.columns import (
    MAP_PREFIX,
    MAX_FILENAME_IN_QUERY,
    MAX_HEADER_NAME,
    MAX_HEADER_NAME_IN_QUERY,
    overlong_map,
)
from .books.errors import BookError
from .books.reader import MAX_BYTES, too_large

logger = logging.getLogger(__name__)

CHUNK = 64 * 1024
MULTIPART_OVERHEAD = 64 * 1024  # the form's own bytes around the file


def refusal(text: str, status: int = 400, outcome: Outcome = Outcome.INVALID_PARAMS) -> Response:
    return Response(envelope(success=False, outcome=outcome, text=text), status=status)


@contextmanager
def received_book(request):
    """The uploaded CSV as a binary file and its name: a multipart `file`, or the body itself. BookError
    (413) past MAX_BYTES, told by Content-Length before anything is read when the client sends it."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    if length.isdigit() and int(length) > MAX_BYTES + MULTIPART_OVERHEAD:
        raise too_large()
    if request.content_type == "multipart/form-data":
        # Django's upload handlers spool a file above FILE_UPLOAD_MAX_MEMORY_SIZE to disk.
        try:
            upload = request.FILES.get("file")
        except (MultiPartParserError, RequestDataTooBig, TooManyFieldsSent) as exc:
            raise BookError(say("book.multipart_unreadable", problem=exc)) from None
        if upload is None:
            raise BookError(say("book.no_file"))
        if upload.size > MAX_BYTES:
            raise too_large()
        upload.seek(0)
        yield upload.file, upload.name or ""
        return
    filename = request.GET.get("filename", "")
    if len(filename) > MAX_FILENAME_IN_QUERY:  # the schema's maxLength, as sent
        raise BookError(say("book.filename_too_long", most=MAX_FILENAME_IN_QUERY))
    with tempfile.SpooledTemporaryFile(max_size=1024 * 1024) as spooled:
        kept = 0
        while chunk := request.read(CHUNK):
            kept += len(chunk)
            if kept > MAX_BYTES:
                raise too_large()
            spooled.write(chunk)
        spooled.seek(0)
        yield spooled, filename


def options_of(request) -> runs.Options:
    """The upload's options: the query string of a text/csv body, the form's fields of a multipart one.
    Each column_<field> maps a field to a header of the file; an empty one maps nothing."""
    form = request.content_type == "multipart/form-data"
    values, limit = (request.POST, MAX_HEADER_NAME) if form else (request.GET, MAX_HEADER_NAME_IN_QUERY)
    for name, value in values.items():
        # The schema's maxLength holds for the value as sent, spaces included.
        if name.startswith(MAP_PREFIX) and len(value) > limit:
            raise overlong_map(name.removeprefix(MAP_PREFIX)[:40], limit)
    return runs.Options(
        order_id_column=(values.get("order_id_column") or "").strip(),
        amount_column=(values.get("amount_column") or "").strip(),
        column_map={
            name.removeprefix(MAP_PREFIX): value.strip()
            for name, value in values.items()
            if name.startswith(MAP_PREFIX) and value.strip()
        },
    )


def applied_answer(applied: applying.Applied) -> tuple[dict, int]:
    """The apply's answer: 200 once the run is applied, 202 while the task runner carries on with the rest."""
    return (
        {
            "success": True,
            "message": summary.applied_message(applied.run, changes=applied.changes, already=applied.already),
            "applied": applied.finished,
            # What this call changed: nothing when the run had been applied before.
            "changes": applied.changes,
            "reconciliation": summary.summary(applied.run),
        },
        200 if applied.finished else 202,
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
        return refusal(say("reconciliation.not_found", pk=pk), 404, Outcome.NOT_FOUND)

    def inactive(self) -> Response | None:
        if self.request.auth.brand_is_active:
            return None
        return refusal(say("change.brand_inactive"), outcome=Outcome.UNRESOLVED_DOMAIN)


class ReconciliationsView(_ReconciliationView):
    def finalize_response(self, request, response, *args, **kwargs):
        # A refusal before the book was read (no key or a wrong one, throttled, an inactive brand): the rest of
        # the body is read and dropped, up to the book's limit, so the answer reaches the caller. Closed with
        # unread bytes, the connection is reset, and nginx, still sending the body it buffered, answers 502.
        if response.status_code >= 400:
            drain(request._request, limit=MAX_BYTES + MULTIPART_OVERHEAD)
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(**schema.UPLOAD)
    def post(self, request):
        if (refused := self.inactive()) is not None:
            return refused
        key = request.auth
        try:
            with received_book(request._request) as (file, filename):
                run = runs.reconcile(
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
    @extend_schema(**schema.READ)
    def get(self, request, pk):
        run = self.run_of(pk)
        if run is None:
            return self.not_found(pk)
        page = request.GET.get("page", "1")
        status = request.GET.get("status")
        if not page.isdigit() or not 1 <= int(page) <= 10_000:
            return refusal(say("reconciliation.page"))
        if status is not None and status not in runs.Status.values:  # given empty: a category it is not
            return refusal(say("reconciliation.status", statuses=", ".join(runs.Status.values)))
        rows = run.rows.filter(status=status) if status else run.rows.all()
        return Response(
            {
                "success": True,
                "reconciliation": {
                    **summary.summary(run),
                    "page": int(page),
                    "pages": summary.pages(run, rows),
                    "rows": summary.page_of_rows(run, int(page), status=status or ""),
                },
            }
        )


class ApplyView(_ReconciliationView):
    @extend_schema(**schema.APPLY)
    def post(self, request, pk):
        run = self.run_of(pk)
        if run is None:
            return self.not_found(pk)
        if run.applied_at is None and (refused := self.inactive()) is not None:
            return refused
        try:
            applied = applying.apply(
                run, request_id=getattr(request._request, "request_id", ""), key_prefix=request.auth.prefix
            )
        except applying.ApplyFailed:
            logger.exception("reconciliation apply failed", extra={"brand_id": run.brand_id})
            return refusal(say("reconciliation.apply_failed"), 500, Outcome.HANDLER_ERROR)
        body, status = applied_answer(applied)
        return Response(body, status=status)
