"""The reconciliation endpoints in the OpenAPI schema (/api/schema/): their bodies, parameters and every
answer with its fields, as attribution.reconciliation.summary writes them (docs/reconciliation.md)."""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from attribution.contract import examples
from attribution.http.answers import KEYED, answer
from attribution.models import BookRow, Reconciliation
from attribution.outcomes import Outcome

from .books.columns import (
    FIELDS,
    MAP_PREFIX,
    MAX_FILENAME_IN_QUERY,
    MAX_HEADER_NAME,
    MAX_HEADER_NAME_IN_QUERY,
)
from .books.reader import MAX_BYTES, MAX_ROWS
from .summary import COUNTS, NO_CHANGES, ROWS_PER_PAGE

TAG = "Reconciliation"
_MB = MAX_BYTES // (1024 * 1024)

_MONEY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["currency", "amount"],
        "properties": {
            "currency": {"type": "string", "example": "USD"},
            "amount": {"type": "string", "description": "A decimal string in the currency's minor units."},
        },
    },
}
_TIME = {"type": "string", "format": "date-time", "nullable": True}
_CHANGES = {
    "type": "object",
    "required": list(NO_CHANGES),
    "properties": {name: {"type": "integer", "minimum": 0} for name in NO_CHANGES},
    "description": "Orders created, amounts updated, commissions cancelled, and rows left as they were "
    "(each row's `change_detail` says why).",
}
RUN = {
    "type": "object",
    "required": [
        "id",
        "format",
        "row_count",
        "period",
        "counts",
        "commission_at_risk",
        "commission_difference",
        "capture_rate",
        "applied",
        "changes",
    ],
    "properties": {
        "id": {"type": "integer"},
        "format": {"type": "string", "enum": list(Reconciliation.Format.values)},
        "filename": {"type": "string"},
        "created_at": _TIME,
        "order_id_column": {"type": "string", "description": "The header the order ids were read from."},
        "amount_column": {"type": "string", "description": "The header the amounts were read from."},
        "columns": {
            "type": "object",
            "required": list(FIELDS),
            "properties": {name: {"type": "string", "nullable": True} for name in FIELDS},
            "description": "For each field of a book, the header it was read from; null when the file has no "
            "column for it.",
        },
        "mapped_columns": {
            "type": "array",
            "items": {"type": "string", "enum": list(FIELDS)},
            "description": "The fields you mapped to a column yourself (`column_<field>`).",
        },
        "row_count": {
            "type": "integer",
            "minimum": 0,
            "description": "The data rows read; the header is not one.",
        },
        "period": {
            "type": "object",
            "required": ["first", "last"],
            "properties": {"first": _TIME, "last": _TIME},
            "description": "The first and last `ordered_at` of the book; null without one.",
        },
        "counts": {
            "type": "object",
            "required": list(COUNTS),
            "properties": {name: {"type": "integer", "minimum": 0} for name in COUNTS},
            "description": "Each book order is in exactly one of the first five; `not_in_book` counts the live "
            "orders received within the book's period that it lacks.",
        },
        "book_orders": {"type": "integer", "minimum": 0, "description": "The book's completed orders."},
        "received": {"type": "integer", "minimum": 0, "description": "Those of them this service received."},
        "capture_rate": {
            "type": "number",
            "nullable": True,
            "minimum": 0,
            "maximum": 1,
            "description": "received / book_orders; null for a book without a completed order.",
        },
        "commission_at_risk": {
            **_MONEY,
            "description": "What the missing orders would earn under today's rules, per currency.",
        },
        "commission_difference": {
            **_MONEY,
            "description": "The change the book's amounts would make to the drifted orders' commissions.",
        },
        "applied": {"type": "boolean"},
        "applying": {"type": "boolean", "description": "Started, and carried on in the background."},
        "applied_at": _TIME,
        "changes": _CHANGES,
    },
}
_ROW = {
    "type": "object",
    "required": ["line", "order_id", "status", "detail"],
    "properties": {
        "line": {"type": "integer", "minimum": 2, "description": "The file's line; the header is line 1."},
        "order_id": {"type": "string"},
        "status": {"type": "string", "enum": list(BookRow.Status.values)},
        "detail": {"type": "string", "description": "Why it is in its category; an invalid row's reason."},
        "change": {"type": "string", "enum": [c for c in BookRow.Change.values if c]},
        "change_detail": {"type": "string"},
    },
}


def _success(status: int, properties: dict, required: list[str], description: str) -> OpenApiResponse:
    return OpenApiResponse(
        response={
            "type": "object",
            "required": ["success", *required],
            "properties": {"success": {"type": "boolean", "enum": [True]}, **properties},
        },
        description=description,
    )


def _refusal(status: int, outcomes: list[Outcome], description: str) -> OpenApiResponse:
    refused = answer(status, outcomes)
    refused.description = f"{description} Outcomes: {', '.join(f'`{o}`' for o in outcomes)}."
    return refused


# Named as the schema's paths name it ({id}: drf-spectacular names a `pk` of the URL `id`), so that it is the
# path's own parameter, not a second one beside it.
_RUN_ID = OpenApiParameter(
    "id",
    {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
    OpenApiParameter.PATH,
    description="The run's id.",
)
_COMMON = {
    401: _refusal(
        401, [Outcome.UNAUTHORIZED], "success false: the developer key is missing, unknown or revoked."
    ),
    404: _refusal(404, [Outcome.NOT_FOUND], "success false: your brand has no reconciliation with this id."),
    429: _refusal(429, [Outcome.RATE_LIMITED], "success false: too many requests."),
}

_FIELD_SAYS = {
    "order_id": "the order id",
    "amount": "the order's amount",
    "currency": "its currency",
    "status": "its status (the generic and WooCommerce statuses)",
    "code": "the discount code",
    "click_id": "the click id",
    "ordered_at": "when it was placed",
    "test": "whether it is a test order",
}
_COLUMN = {"type": "string", "maxLength": MAX_HEADER_NAME}
_MAP_PARAMETERS = [
    OpenApiParameter(
        MAP_PREFIX + name,
        {"type": "string", "maxLength": MAX_HEADER_NAME_IN_QUERY},
        description=f"The header of the column that holds {_FIELD_SAYS[name]}, whatever the format would "
        "read; case and spacing do not matter. A header the file does not have is a 400.",
    )
    for name in FIELDS
]

EXAMPLE_BOOK = (
    "order_id,amount,currency,status,code,ordered_at\n"
    f"{examples.READ_ORDER},100.00,USD,completed,{examples.CODE},2026-11-20T10:00:00Z\n"
    f"{examples.UPDATE_ORDER},100.00,USD,completed,{examples.CODE},2026-11-20T11:00:00Z\n"
)

UPLOAD = dict(
    summary="Upload your order book (CSV) to reconcile",
    description=(
        "The book is compared with the orders received; the upload changes nothing (apply does). The format "
        "is told by the header: generic (`order_id`, `amount`, `currency`; optional `status`, `code`, "
        "`click_id`, `ordered_at`, `test`), Shopify's orders export, or a WooCommerce orders export. "
        "`column_<field>=<header>` maps a field to a column of your file when its names are not these (the "
        "query string of a text/csv body, the form's fields of a multipart one). UTF-8 "
        f"with or without a BOM, `,` or `;` between cells. At most {MAX_ROWS:,} rows and {_MB} MB "
        "(docs/reconciliation.md)."
    ),
    tags=[TAG],
    request={
        "text/csv": {"type": "string", "description": "The CSV file itself."},
        "multipart/form-data": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {"type": "string", "format": "binary"},
                "order_id_column": {"type": "string", "enum": ["", "id", "name"]},
                "amount_column": {"type": "string", "enum": ["", "subtotal", "total"]},
                **{MAP_PREFIX + name: _COLUMN for name in FIELDS},
            },
        },
    },
    parameters=[
        OpenApiParameter(
            "order_id_column",
            {"type": "string", "enum": ["", "id", "name"]},
            description="Shopify: the order id is `Id` or `Name` (default: whichever matches your orders).",
        ),
        OpenApiParameter(
            "amount_column",
            {"type": "string", "enum": ["", "subtotal", "total"]},
            description="Shopify: the amount is `Subtotal` (default) or `Total`.",
        ),
        *_MAP_PARAMETERS,
        OpenApiParameter(
            "filename",
            {"type": "string", "maxLength": MAX_FILENAME_IN_QUERY},
            description="A name to show the run under (text/csv uploads).",
        ),
        *KEYED,
    ],
    examples=[
        OpenApiExample(
            "generic",
            summary="a generic book of two orders",
            value=EXAMPLE_BOOK,
            media_type="text/csv",
            request_only=True,
        )
    ],
    responses={
        201: _success(
            201,
            {"reconciliation": RUN},
            ["reconciliation"],
            "success true: the run, with its counts and what the differences cost.",
        ),
        400: _refusal(
            400,
            [Outcome.INVALID_PARAMS, Outcome.UNRESOLVED_DOMAIN],
            "success false: the file cannot be a book (empty, no order id or amount column, a mapped "
            "column it does not have, not UTF-8, not CSV), or the brand is inactive; nothing is stored.",
        ),
        401: _COMMON[401],
        413: _refusal(
            413,
            [Outcome.INVALID_PARAMS],
            f"success false: more than {MAX_ROWS:,} rows or {_MB} MB; nothing is stored.",
        ),
        429: _COMMON[429],
    },
)

READ = dict(
    summary="A reconciliation, with its rows",
    description=f"The summary and the book's rows in file order, {ROWS_PER_PAGE:,} a page.",
    tags=[TAG],
    parameters=[
        _RUN_ID,
        OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": 10_000}, description="From 1."),
        OpenApiParameter(
            "status",
            {"type": "string", "enum": list(BookRow.Status.values)},
            description="Only the rows of one category.",
        ),
        *KEYED,
    ],
    responses={
        200: _success(
            200,
            {
                "reconciliation": {
                    **RUN,
                    "required": [*RUN["required"], "page", "pages", "rows"],
                    "properties": {
                        **RUN["properties"],
                        "page": {"type": "integer", "minimum": 1},
                        "pages": {"type": "integer", "minimum": 1},
                        "rows": {"type": "array", "items": _ROW},
                    },
                }
            },
            ["reconciliation"],
            "success true: the run and one page of its rows.",
        ),
        400: _refusal(400, [Outcome.INVALID_PARAMS], "success false: `page` or `status` cannot be read."),
        **_COMMON,
    },
)

_APPLIED = {
    "message": {"type": "string"},
    "applied": {"type": "boolean"},
    "changes": {
        **_CHANGES,
        "description": "What this call changed: all zero when the run was applied before.",
    },
    "reconciliation": RUN,
}

APPLY = dict(
    summary="Apply a reconciliation's changes, once",
    description=(
        "Creates the missing orders through the order confirmation's decision (the click window judged at "
        "`ordered_at`), updates drifted amounts and cancels what the book cancelled, on pending commissions "
        "only; each change is an outcome row of the `reconciliation` endpoint. A second apply changes nothing."
    ),
    tags=[TAG],
    request=None,
    parameters=[_RUN_ID, *KEYED],
    responses={
        200: _success(
            200,
            _APPLIED,
            ["message", "applied", "changes", "reconciliation"],
            "success true: applied (or already).",
        ),
        202: _success(
            202,
            _APPLIED,
            ["message", "applied", "changes", "reconciliation"],
            "success true: applied in part; the rest is applied in the background within minutes.",
        ),
        400: _refusal(400, [Outcome.UNRESOLVED_DOMAIN], "success false: the brand is inactive."),
        **_COMMON,
        500: _refusal(500, [Outcome.HANDLER_ERROR], "success false: a fault on our side; apply again."),
    },
)
