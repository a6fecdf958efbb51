"""POST /api/Affiliates/review's fields (docs/api.md): the contract the review's decision service
(attribution.review.decisions) runs (`check()`) and the OpenAPI schema documents."""

from attribution import parsing
from attribution.contract import examples

from .fields import FlagField, OrderIdField, RuleField
from .requests import RequestSerializer

DECISIONS = ("release", "reject")


class DecisionField(RuleField):
    """release or reject, exactly (trimmed, any case)."""

    def parse(self, value):
        if not isinstance(value, str) or value.strip().lower() not in DECISIONS:
            raise parsing.FieldError('must be "release" or "reject"')
        return value.strip().lower()

    def json_schema(self):
        return {"type": "string", "enum": list(DECISIONS)}


class NoteField(RuleField):
    """A sentence: a string of at most NOTE_LENGTH characters, trimmed; null or blank is none."""

    def parse(self, value):
        if value is None:
            return ""
        if not isinstance(value, str):
            raise parsing.FieldError("must be a string")
        if "\x00" in value:  # no database keeps it
            raise parsing.FieldError("must not hold a NUL character")
        if len(value.strip()) > NOTE_LENGTH:
            raise parsing.FieldError(f"is longer than {NOTE_LENGTH} characters")
        return value.strip()

    def json_schema(self):
        return {"type": "string", "maxLength": NOTE_LENGTH, "pattern": "^[^\\u0000]*$", "nullable": True}


NOTE_LENGTH = 1000


class ReviewSerializer(RequestSerializer):
    """A review decision, its fields in the order they are judged: the first that fails decides."""

    order_id = OrderIdField(
        fix="order_id",
        example=int(examples.FIELD_ORDER),
        help_text="The orderId of the held order's confirmation: a whole number or a string "
        '(trimmed, 1-255 characters); 123 and "123" are the same order.',
    )
    decision = DecisionField(
        fix="review.decision",
        example="release",
        help_text='"release": the commission is pending again and locks when its window closes; "reject": '
        "it is cancelled. Otherwise `invalid_params`.",
    )
    note = NoteField(
        required=False,
        allow_null=True,
        fix="review.note",
        example="Checked with the creator: a gift for her sister.",
        help_text="Why, in a sentence: kept with the hold and shown with it. At most 1000 characters.",
    )
    test = FlagField(
        required=False,
        allow_null=True,
        example=False,
        help_text='true: a test order\'s commission; absent or false: a live one. "true"/"false" also read.',
    )
