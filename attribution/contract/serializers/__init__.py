"""The request of each endpoint as a DRF serializer: one definition that validates it and documents it, one module
per endpoint (order_confirmation, cancellation, amount_update, order_read, review) on the field rules (fields, items) and
the request base (requests).

Each field holds one field rule of attribution.parsing (its `parse`) and the JSON Schema of exactly what
that rule accepts (its `openapi_schema`, built from attribution.contract.field_schemas and served at /api/schema/
through attribution.api.schema). A serializer
declares its fields in the decision order (docs/decisions.md, "Decision order of an order confirmation";
docs/api.md for cancel and update): `check` runs their rules in that order and stops at the first
refusal, answered with the outcome the field names and its fix sentence from attribution.outcomes.

The services call `check` rather than `is_valid`, which deep-copies every field per request and collects
every error where the decision order wants the first; both run the same rules.
"""

from .amount_update import AmountUpdateSerializer
from .cancellation import CancellationSerializer
from .fields import (
    AmountField,
    ClickIdField,
    CurrencyField,
    EmailHashField,
    FlagField,
    HostField,
    OptionalTextField,
    OrderIdField,
    PathTextField,
    RuleField,
    TimestampField,
)
from .items import ItemsField
from .order_confirmation import OrderConfirmationSerializer
from .order_read import OrderReadSerializer
from .requests import Checked, RequestSerializer
from .review import ReviewSerializer

__all__ = [
    "AmountField",
    "AmountUpdateSerializer",
    "CancellationSerializer",
    "Checked",
    "ClickIdField",
    "CurrencyField",
    "EmailHashField",
    "FlagField",
    "HostField",
    "ItemsField",
    "OptionalTextField",
    "OrderConfirmationSerializer",
    "OrderIdField",
    "OrderReadSerializer",
    "PathTextField",
    "RequestSerializer",
    "ReviewSerializer",
    "RuleField",
    "TimestampField",
]
