"""The field rules: a DRF field per rule of attribution.parsing, with the JSON Schema of exactly what it accepts."""

from rest_framework import serializers

from attribution import parsing
from attribution.contract.field_schemas import (
    CURRENCY_PATTERN,
    FLAG_PATTERN,
    SPACE,
    amount_number,
    amount_pattern,
    nullable,
    text_of_at_most,
    trimmed,
    whole_number_of_at_most,
)
from attribution.outcomes import Outcome
from brands.emails import hash_with_verdict


class RuleField(serializers.Field):
    """A field judged by one rule of attribution.parsing.

    `outcome` is what a refusal answers (None: the event is kept, with a warning); `fix` names its fix
    sentence in FIELD_FIXES (the field's own name by default).
    """

    def __init__(self, *, outcome: Outcome | None = Outcome.INVALID_PARAMS, fix=None, example=None, **kwargs):
        self.outcome, self.fix, self.example = outcome, fix, example
        super().__init__(**kwargs)

    def parse(self, value):
        """The field rule: the clean value, or FieldError. `value` is None when the field is absent."""
        raise NotImplementedError

    def json_schema(self) -> dict:
        """What `parse` accepts, in the JSON Schema of OpenAPI 3.0."""
        raise NotImplementedError

    def openapi_schema(self) -> dict:
        schema = self.json_schema()
        return schema if self.example is None else {**schema, "example": self.example}

    def to_internal_value(self, data):
        try:
            return self.parse(data)
        except parsing.FieldError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value):
        return value


class OrderIdField(RuleField):
    def parse(self, value):
        return parsing.parse_order_id(value)

    def json_schema(self):
        length = parsing.MAX_ORDER_ID_LENGTH
        return {
            "oneOf": [
                whole_number_of_at_most(length),
                {"type": "string", "pattern": trimmed(text_of_at_most(length))},
            ]
        }


class AmountField(RuleField):
    def __init__(self, *, allow_zero: bool, **kwargs):
        self.allow_zero = allow_zero
        super().__init__(**kwargs)

    def parse(self, value):
        return parsing.parse_amount(value, allow_zero=self.allow_zero)

    def json_schema(self):
        return {
            "oneOf": [
                amount_number(allow_zero=self.allow_zero),
                {"type": "string", "pattern": amount_pattern(allow_zero=self.allow_zero)},
            ]
        }


class CurrencyField(RuleField):
    def parse(self, value):
        return parsing.parse_currency(value)

    def json_schema(self):
        return {"type": "string", "pattern": CURRENCY_PATTERN}


class FlagField(RuleField):
    """A boolean, or the strings "true"/"false" some snippets send; absent or null is false."""

    def parse(self, value):
        return parsing.parse_bool(value)

    def json_schema(self):
        return nullable({"oneOf": [{"type": "boolean"}, {"type": "string", "pattern": FLAG_PATTERN}]}, self)


class OptionalTextField(RuleField):
    """A string (or an integer, read as its digits) of at most `max_length` characters; blank is none."""

    def __init__(self, *, max_length: int, **kwargs):
        self.max_length = max_length
        super().__init__(**kwargs)

    def parse(self, value):
        return parsing.parse_optional_text(value, max_length=self.max_length)

    def json_schema(self):
        # An integer's digits count as its characters; 12.0 is not an integer here (OpenAPI 3.0).
        limit = self.max_length
        text = {"type": "string", "pattern": f"^{SPACE}*(?:{text_of_at_most(limit)})?{SPACE}*$"}
        return nullable(
            {
                "oneOf": [
                    text,
                    {"type": "integer", "minimum": -(10 ** (limit - 1) - 1), "maximum": 10**limit - 1},
                ]
            },
            self,
        )


class EmailHashField(RuleField):
    """An address hashed on arrival: the rules hand on its hash and a throwaway-domain verdict (brands.emails)."""

    def parse(self, value):
        email = parsing.parse_optional_email(value)
        return hash_with_verdict(value, email) if email else None

    def json_schema(self):
        return nullable({"type": "string", "pattern": f"^{SPACE}*(?:{text_of_at_most(320)})?{SPACE}*$"}, self)


class ClickIdField(RuleField):
    def parse(self, value):
        return parsing.parse_click_id(value)

    def json_schema(self):
        return nullable(
            {"type": "string", "pattern": trimmed(f"(?:{parsing.CLICK_ID_PATTERN.pattern})?")}, self
        )


class TimestampField(RuleField):
    """Read when it can be; a value it cannot read never loses the event (outcome None: a warning)."""

    def __init__(self, **kwargs):
        super().__init__(outcome=None, **kwargs)

    def parse(self, value):
        return None if value in (None, "") else parsing.parse_timestamp(value)

    def json_schema(self):
        # Any value is accepted (what cannot be read is left out with a warning, the event kept), so the
        # last choice takes anything; the others name the forms that are read.
        return {
            "anyOf": [
                {
                    "type": "string",
                    "format": "date-time",
                    "description": "ISO 8601 with an offset: 2026-12-24T00:00:00Z",
                },
                {
                    "type": "string",
                    "description": "ISO 8601 without an offset (UTC): 2026-12-24T00:00:00, 2026-12-24 or 20261224; "
                    "or Unix epoch seconds or milliseconds as digits",
                },
                {"type": "number", "description": "Unix epoch seconds or milliseconds"},
                {
                    "description": "anything else: left out, with a warning on your health pages; the event is kept"
                },
            ]
        }


class HostField(RuleField):
    """page_url and domain: read by brand resolution (brands.resolution), which answers what fails
    (unresolved_domain) after the field rules; no rule of its own."""

    def parse(self, value):
        return value

    def json_schema(self):
        return nullable({"type": "string"} if self.allow_null else {"type": "string", "minLength": 1}, self)


class PathTextField(RuleField):
    """An order id as the read API's path carries it: any text, trimmed; an unknown one is not found."""

    def parse(self, value):
        return value.strip()

    def json_schema(self):  # bounded as an order id is, so that the request line stays within 8 KB
        return {"type": "string", "minLength": 1, "maxLength": parsing.MAX_ORDER_ID_LENGTH}
