"""A commission plan's document (docs/plans.md): parsed and checked whole, into the frozen Plan the engine
prices with. A document that fails any check is refused with one error naming the field; nothing here reads
the database (the caller says which creators the brand has)."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.utils.dateparse import parse_datetime

from ..currencies import minor_units

MAX_RULES = 200
HUNDRED = Decimal(100)
LINE_CONDITIONS = ("skus", "product_ids", "collections", "vendors")
CONDITIONS = ("creators", *LINE_CONDITIONS, "customer", "order_amount_at_least")
FIELDS = (
    "currency",
    "base",
    "default",
    "rules",
    "minimum_order_amount",
    "cap_per_order",
    "cap_per_creator_month",
    "tiers",
    "effective_from",
    "apply_to",
)
APPLY_TO = ("new_orders", "unpaid")


class Refused(ValueError):
    """The document is refused whole; `field` names where (`rules[2].percent`)."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field


@dataclass(frozen=True, slots=True)
class Base:
    after_discounts: bool = True
    shipping: bool = False
    tax: bool = False


@dataclass(frozen=True, slots=True)
class Rate:
    percent: Decimal | None = None
    flat: Decimal | None = None


@dataclass(frozen=True, slots=True)
class When:
    creators: frozenset[int] | None = None
    skus: frozenset[str] | None = None
    product_ids: frozenset[str] | None = None
    collections: frozenset[str] | None = None
    vendors: frozenset[str] | None = None
    customer: str | None = None  # "new" or "returning"
    order_amount_at_least: Decimal | None = None

    @property
    def per_line(self) -> bool:
        return any(getattr(self, name) is not None for name in LINE_CONDITIONS)


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    when: When
    rate: Rate
    per_line: bool = False  # judged per line (a line condition): its flat amount is per unit


@dataclass(frozen=True, slots=True)
class Tier:
    metric: str  # "orders" or "revenue"
    start: Decimal  # the document's `from`
    percent: Decimal
    retroactive: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    currency: str
    base: Base
    default: Rate
    rules: tuple[Rule, ...] = ()
    minimum_order_amount: Decimal | None = None
    cap_per_order: Decimal | None = None
    cap_per_creator_month: Decimal | None = None
    tiers: tuple[Tier, ...] = ()
    effective_from: datetime | None = None
    apply_to: str = "new_orders"
    # The rules by kind, in their order, and what pricing needs to know of the whole plan: worked out once
    # when it is parsed (a plan is parsed once per brand and version), not per order.
    line_rules: tuple[Rule, ...] = ()
    order_rules: tuple[Rule, ...] = ()
    needs_month: bool = False  # a monthly cap or tiers: pricing reads the creator's month so far
    has_amounts: bool = False  # flat amounts or thresholds in the plan's currency


def rates_document(percent: Decimal, returning_percent: Decimal | None, *, currency: str, base=None) -> dict:
    """Version 1 of a brand's plan: its one rate and, when it has one, its returning-customer rate as a rule
    (what the brand was paid before plans existed)."""
    rules = []
    if returning_percent is not None:
        rules.append(
            {
                "name": "Returning customers",
                "when": {"customer": "returning"},
                "percent": str(returning_percent),
            }
        )
    return {
        "currency": currency,
        "base": base or {"after_discounts": True, "shipping": False, "tax": False},
        "default": {"percent": str(percent)},
        "rules": rules,
        "apply_to": "new_orders",
    }


def parse(document, *, creator_exists: Callable[[Iterable[int]], set[int]] | None = None) -> Plan:
    """The Plan a document says, or Refused naming the first field at fault. `creator_exists` answers which
    of the given creator ids the brand has (None: not checked, for a document already stored)."""
    if not isinstance(document, dict):
        raise Refused("plan", "must be a JSON object")
    _known(document, FIELDS, "")
    currency = document.get("currency")
    if not isinstance(currency, str) or minor_units(currency) is None:
        raise Refused("currency", "must be an ISO 4217 currency code such as USD")
    rules_in = document.get("rules", [])
    if not isinstance(rules_in, list):
        raise Refused("rules", "must be a list")
    if len(rules_in) > MAX_RULES:
        raise Refused("rules", f"at most {MAX_RULES} rules, {len(rules_in)} given")
    rules = tuple(_rule(rule, f"rules[{i}]") for i, rule in enumerate(rules_in))
    named = {c for rule in rules if rule.when.creators for c in rule.when.creators}
    if named and creator_exists is not None:
        unknown = sorted(named - set(creator_exists(named)))
        if unknown:
            at = next(i for i, r in enumerate(rules) if r.when.creators and unknown[0] in r.when.creators)
            raise Refused(f"rules[{at}].when.creators", f"no creator {unknown[0]} in this brand")
    apply_to = document.get("apply_to", "new_orders")
    if apply_to not in APPLY_TO:
        raise Refused("apply_to", "must be new_orders or unpaid")
    default = _rate(_object(document.get("default", {}), "default"), "default", ("percent", "flat"))
    limits = {
        name: _amount(document.get(name), name)
        for name in ("minimum_order_amount", "cap_per_order", "cap_per_creator_month")
    }
    tiers = _tiers(document.get("tiers", []))
    has_amounts = (
        default.flat is not None
        or any(r.rate.flat is not None or r.when.order_amount_at_least is not None for r in rules)
        or any(value is not None for value in limits.values())
    )
    return Plan(
        currency=currency,
        base=_base(document.get("base", {})),
        default=default,
        rules=rules,
        tiers=tiers,
        effective_from=_moment(document.get("effective_from"), "effective_from"),
        apply_to=apply_to,
        line_rules=tuple(r for r in rules if r.per_line),
        order_rules=tuple(r for r in rules if not r.per_line),
        needs_month=limits["cap_per_creator_month"] is not None or bool(tiers),
        has_amounts=has_amounts,
        **limits,
    )


def _known(value: dict, allowed: tuple, at: str) -> None:
    for key in value:
        if key not in allowed:
            raise Refused(f"{at}{key}", "unknown field")


def _object(value, at: str) -> dict:
    if not isinstance(value, dict):
        raise Refused(at, "must be a JSON object")
    return value


def _decimal(value, at: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise Refused(at, 'must be a number, written as text such as "10" or "2.50"')
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise Refused(at, f"{value!r} is not a number") from None
    if not number.is_finite():
        raise Refused(at, f"{value!r} is not a number")
    return number


def _amount(value, at: str) -> Decimal | None:
    if value is None:
        return None
    number = _decimal(value, at)
    if number < 0:
        raise Refused(at, "must not be negative")
    return number


def _percent(value, at: str) -> Decimal:
    number = _decimal(value, at)
    if not 0 <= number <= HUNDRED:
        raise Refused(at, "must be between 0 and 100")
    return number


def _rate(value: dict, at: str, allowed: tuple) -> Rate:
    _known(value, allowed, f"{at}.")
    percent = _percent(value["percent"], f"{at}.percent") if value.get("percent") is not None else None
    flat = _amount(value.get("flat"), f"{at}.flat")
    return Rate(percent, flat)


def _base(value) -> Base:
    _known(_object(value, "base"), ("after_discounts", "shipping", "tax"), "base.")
    flags = {}
    for name, default in (("after_discounts", True), ("shipping", False), ("tax", False)):
        flag = value.get(name, default)
        if not isinstance(flag, bool):
            raise Refused(f"base.{name}", "must be true or false")
        flags[name] = flag
    return Base(**flags)


def _rule(value, at: str) -> Rule:
    value = _object(value, at)
    name = value.get("name", "")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise Refused(f"{at}.name", "must be a name of 1 to 100 characters")
    when = _when(_object(value.get("when", {}), f"{at}.when"), f"{at}.when")
    rate = _rate(value, at, ("name", "when", "percent", "flat"))
    if rate.percent is None and rate.flat is None:
        raise Refused(f"{at}.percent", "a rule pays a percent, a flat amount or both")
    return Rule(name.strip(), when, rate, when.per_line)


def _when(value: dict, at: str) -> When:
    _known(value, CONDITIONS, f"{at}.")
    found: dict = {}
    if "creators" in value:
        ids = value["creators"]
        if not isinstance(ids, list) or not ids or not all(type(i) is int and i > 0 for i in ids):
            raise Refused(f"{at}.creators", "must be a list of creator ids")
        found["creators"] = frozenset(ids)
    for name in LINE_CONDITIONS:
        if name in value:
            items = value[name]
            if not isinstance(items, list) or not items or not all(isinstance(i, str | int) for i in items):
                raise Refused(f"{at}.{name}", "must be a list of names")
            found[name] = frozenset(str(i).strip() for i in items)
    if "customer" in value:
        if value["customer"] not in ("new", "returning"):
            raise Refused(f"{at}.customer", "must be new or returning")
        found["customer"] = value["customer"]
    if "order_amount_at_least" in value:
        found["order_amount_at_least"] = _amount(
            value["order_amount_at_least"], f"{at}.order_amount_at_least"
        )
    return When(**found)


def _tiers(value) -> tuple[Tier, ...]:
    if not isinstance(value, list):
        raise Refused("tiers", "must be a list")
    tiers = []
    for i, tier in enumerate(value):
        at = f"tiers[{i}]"
        _known(_object(tier, at), ("metric", "from", "percent", "retroactive"), f"{at}.")
        if tier.get("metric") not in ("orders", "revenue"):
            raise Refused(f"{at}.metric", "must be orders or revenue")
        start = _amount(tier.get("from"), f"{at}.from")
        if start is None:
            raise Refused(f"{at}.from", "is required")
        if tier["metric"] == "orders" and start != start.to_integral_value():
            raise Refused(f"{at}.from", "a count of orders is a whole number")
        if not isinstance(tier.get("retroactive", False), bool):
            raise Refused(f"{at}.retroactive", "must be true or false")
        if tier.get("percent") is None:
            raise Refused(f"{at}.percent", "is required")
        tiers.append(
            Tier(
                tier["metric"],
                start,
                _percent(tier["percent"], f"{at}.percent"),
                tier.get("retroactive", False),
            )
        )
    return tuple(sorted(tiers, key=lambda t: (t.metric, t.start)))


def _moment(value, at: str) -> datetime | None:
    if value is None:
        return None
    moment = parse_datetime(value) if isinstance(value, str) else None
    if moment is None or moment.tzinfo is None:
        raise Refused(at, "must be a date and time with its offset, such as 2026-12-01T00:00:00Z")
    return moment
