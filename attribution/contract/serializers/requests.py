"""A request whose fields are field rules (attribution.contract.serializers.fields), declared in the decision
order, and the verdict `check` gives a body; the fields a cancel and an amount update share."""

from dataclasses import dataclass, field

from rest_framework import serializers

from attribution import parsing
from attribution.contract import examples
from attribution.outcomes import Outcome, field_error

from .fields import HostField, RuleField


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


def optional(**kwargs):
    return {"required": False, "allow_null": True, **kwargs}


ORDER_ID_OF_CHANGE = dict(
    fix="order_id",
    example=int(examples.FIELD_ORDER),
    help_text="The orderId of the original order confirmation: a whole number or a string "
    '(trimmed, 1-255 characters); 123 and "123" are the same order.',
)
DOMAIN_OF_CHANGE = dict(
    **optional(example=examples.HOST),
    help_text="One of your registered properties, for brands with several storefronts; another host is "
    "`unresolved_domain`.",
)
TEST_OF_CHANGE = dict(
    **optional(example=False),
    help_text='true: act on test orders only; absent or false: on live orders only. "true"/"false" also read.',
)
