"""The request of each endpoint as a DRF serializer: one definition that validates it and documents it.

Each field holds one field rule of attribution.parsing (its `parse`) and the JSON Schema of exactly what
that rule accepts (its `openapi_schema`, built from attribution.contract.field_schemas and served at /api/schema/
through attribution.api.schema). A serializer
declares its fields in the decision order (docs/decisions.md, "Decision order of an order confirmation";
docs/api.md for cancel and update): `check` runs their rules in that order and stops at the first
refusal, answered with the outcome the field names and its fix sentence from attribution.outcomes.

The services call `check` rather than `is_valid`, which deep-copies every field per request and collects
every error where the decision order wants the first; both run the same rules.
"""

from dataclasses import dataclass, field

from rest_framework import serializers

from attribution import parsing
from attribution.contract import examples
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
from attribution.outcomes import Outcome, field_error
from brands.emails import hash_with_verdict

# --- the fields ------------------------------------------------------------------------------------


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


# --- the serializers -------------------------------------------------------------------------------


@dataclass(slots=True)
class Checked:
    """The field rules' verdict on a body: the clean values (up to a refusal), the refusal's outcome and
    sentence if any, and the warnings of fields that do not refuse (field name, problem)."""

    values: dict
    refusal: tuple[Outcome, str] | None = None
    warnings: list = field(default_factory=list)

    def refused(self, result, *, order_id_field: str) -> bool:
        """Tell `result` (attribution.outcomes.Result) the order id when the rules read one, so even a
        refusal names its order, and the refusal when there is one; True when there is."""
        if order_id_field in self.values:
            result.order_id = self.values[order_id_field]
        if self.refusal is None:
            return False
        result.set(*self.refusal)
        return True


class RequestSerializer(serializers.Serializer):
    """A request whose fields are field rules, declared in the decision order."""

    rules: dict[str, RuleField] = {}
    required_names: tuple[str, ...] = ()
    _judged: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.rules = dict(cls._declared_fields)
        cls.required_names = tuple(name for name, rule in cls.rules.items() if rule.required)
        # What check() walks on every request: the bound rules, without the fields that have none.
        cls._judged = tuple(
            (name, rule.parse, rule) for name, rule in cls.rules.items() if not isinstance(rule, HostField)
        )

    @classmethod
    def asks_for_test(cls, payload: dict) -> bool:
        """Whether the body names the test namespace, read before the other rules so that a refused test
        event is still counted apart from live ones; False when its `test` is unreadable."""
        try:
            return bool(cls.rules["test"].parse(payload.get("test")))
        except parsing.FieldError:
            return False

    @classmethod
    def check(cls, payload: dict) -> Checked:
        """Run every field rule in the decision order; the first refusal decides."""
        checked = Checked({})
        for name, parse, rule in cls._judged:
            value = payload.get(name)
            try:
                checked.values[name] = parse(value)
            except parsing.FieldError as exc:
                if rule.outcome is None:
                    checked.values[name] = None
                    checked.warnings.append((name, str(exc)))
                    continue
                problem = "is missing" if value is None else str(exc)
                checked.refusal = (rule.outcome, field_error(name, problem, fix=rule.fix))
                return checked
        return checked


def _optional(**kwargs):
    return {"required": False, "allow_null": True, **kwargs}


class OrderConfirmationSerializer(RequestSerializer):
    """An order confirmation, its fields in the order they are judged: the first that fails decides."""

    orderId = OrderIdField(
        outcome=Outcome.INVALID_ORDER_ID,
        example=int(examples.FIELD_ORDER),
        help_text='Your id of the order: a whole number, or a string (trimmed, 1-255 characters). 123 and "123" '
        "are the same order. Otherwise `invalid_order_id`.",
    )
    orderAmount = AmountField(
        allow_zero=False,
        outcome=Outcome.INVALID_ORDER_AMOUNT,
        example=59.9,
        help_text='The order total: a number, or a string holding only a plain decimal number ("59.90"). '
        "Kept to 6 decimal places (rounded half-up), then greater than 0 and below 10^12. "
        "Otherwise `invalid_order_amount`.",
    )
    currency = CurrencyField(
        example="USD",
        help_text="An ISO 4217 code with minor units, in any case. Otherwise `invalid_params`.",
    )
    page_url = HostField(
        example=examples.PAGE,
        help_text="The URL of the page sending the event; its host must be one of your registered properties "
        "(else `unresolved_domain`). `domain`, when sent, is used instead.",
    )
    test = FlagField(
        **_optional(example=False),
        help_text='A test event: counted apart, never billed. true or false (or "true"/"false").',
    )
    is_returning_customer = FlagField(
        **_optional(example=False),
        help_text='The shopper has ordered before: your returning-customer rate applies. true or false (or "true"/"false").',
    )
    code = OptionalTextField(
        max_length=100,
        **_optional(example=examples.CODE),
        help_text='The discount code used, at most 100 characters; null or "" for none.',
    )
    customer_email = EmailHashField(
        **_optional(example="shopper@example.com"),
        help_text="The shopper's address, for known-shopper attribution: hashed on arrival, never stored.",
    )
    clickId = ClickIdField(
        outcome=Outcome.MALFORMED_CLICK_ID,
        **_optional(example=examples.CLICK),
        help_text='The sms_click_id cookie exactly as stored; null or "" for none. Otherwise `malformed_click_id`.',
    )
    returnWindowClosesAt = TimestampField(
        **_optional(example="2026-12-24T00:00:00Z"),
        help_text="When the return window closes: ISO 8601 (UTC without an offset; also 20261224) or Unix "
        "epoch seconds or milliseconds, as a number or a string. A value that cannot be read is left out "
        "and the event kept, with a warning on your health pages.",
    )
    domain = HostField(
        **_optional(example=examples.HOST),
        help_text="Your storefront's host, for when page_url cannot carry it; when not blank it is used "
        "instead of page_url's host.",
    )


_ORDER_ID_OF_CHANGE = dict(
    fix="order_id",
    example=int(examples.FIELD_ORDER),
    help_text="The orderId of the original order confirmation: a whole number or a string "
    '(trimmed, 1-255 characters); 123 and "123" are the same order.',
)
_DOMAIN_OF_CHANGE = dict(
    **_optional(example=examples.HOST),
    help_text="One of your registered properties, for brands with several storefronts; another host is "
    "`unresolved_domain`.",
)
_TEST_OF_CHANGE = dict(
    **_optional(example=False),
    help_text='true: act on test orders only; absent or false: on live orders only. "true"/"false" also read.',
)


class CancellationSerializer(RequestSerializer):
    """A cancellation, its fields in the order they are judged: the first that fails decides."""

    order_id = OrderIdField(**_ORDER_ID_OF_CHANGE)
    test = FlagField(**_TEST_OF_CHANGE)
    domain = HostField(**_DOMAIN_OF_CHANGE)


class AmountUpdateSerializer(RequestSerializer):
    """An amount update, its fields in the order they are judged: the first that fails decides."""

    order_id = OrderIdField(**_ORDER_ID_OF_CHANGE)
    new_order_amount = AmountField(
        allow_zero=True,
        outcome=Outcome.INVALID_ORDER_AMOUNT,
        example=49.9,
        help_text="The order's new total, 0 or more, in the format of orderAmount. Otherwise `invalid_order_amount`.",
    )
    currency = CurrencyField(
        fix="change.currency", example="USD", help_text="The currency of the original order, in any case."
    )
    test = FlagField(**_TEST_OF_CHANGE)
    domain = HostField(**_DOMAIN_OF_CHANGE)


class OrderReadSerializer(RequestSerializer):
    """GET /api/Affiliates/orders/<order_id>: the path's order id and the query's test flag."""

    TEST_MAX_LENGTH = 32  # the query's test flag as sent, at most: `true` with room for spaces, within 8 KB
    order_id = PathTextField(
        example=examples.READ_ORDER,  # a read changes nothing: it shows the order the read example finds
        help_text="The order id as sent on the order confirmation, URL-encoded; slashes may stay.",
    )
    test = FlagField(**_optional(example=False), help_text="Read the test namespace.")
