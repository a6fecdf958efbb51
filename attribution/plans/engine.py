"""The pricing of one order under one plan version (docs/plans.md): pure arithmetic, no database. The
caller passes what the plan needs from outside the order: the creator, her month so far (only for a
monthly cap or tiers) and the rate from the plan's currency into the order's (only for flat amounts, caps
and thresholds in another currency). The answer keeps its calculation, line by line."""

from dataclasses import dataclass
from decimal import Decimal

from ..money import in_minor_units
from .document import Plan, Rule

ZERO, ONE, HUNDRED = Decimal(0), Decimal(1), Decimal(100)
MAX_RATE = Decimal("999.99")  # the commission's rate_percent column: 5 digits, 2 decimals
DEFAULT = "Default"


@dataclass(frozen=True, slots=True)
class Month:
    """A creator's calendar month before this order, in the order's currency: her live orders, their
    revenue (the plans' bases) and the commissions they earned."""

    orders: int = 0
    revenue: Decimal = ZERO
    commission: Decimal = ZERO


NO_MONTH = Month()  # a creator's month with nothing in it yet (or not read: the plan needs none)


class Priced:
    """What a plan gives an order: the commission and its rate at once, the calculation when it is read (built
    then, once: most orders are priced whole by the default, whose calculation is not stored, so it is never
    built on the order path)."""

    __slots__ = ("amount", "rate_percent", "rules", "version", "follows_from_row", "_build", "_calculation")

    def __init__(self, amount, rate_percent, rules, *, version, follows_from_row, build):
        self.amount: Decimal = amount  # rounded once, to the order currency's minor units
        self.rate_percent: Decimal = rate_percent  # the effective rate: amount / base (pages show one rate)
        self.rules: tuple[str, ...] = rules  # the rule that took each line, in line order
        self.version: int = version  # the plan version that priced it
        # The calculation follows from what the commission row keeps (its order amount, currency, customer,
        # creator, rate and plan version) and its immutable version alone: the whole order, taken by the
        # plan's default, with no amount converted from the plan's currency and no month read. Such a calculation is not written a
        # second time beside the row; attribution.plans.shown works it out again on read, to the same figures.
        self.follows_from_row: bool = follows_from_row
        self._build = build
        self._calculation: dict | None = None

    @property
    def calculation(self) -> dict:
        if self._calculation is None:
            self._calculation = self._build()
        return self._calculation

    @property
    def kept(self) -> dict | None:
        """What the commission stores as its calculation: None when it follows from the row."""
        return None if self.follows_from_row else self.calculation


@dataclass(slots=True)
class _Line:
    line: (
        object | None
    )  # an attribution.orders.lines.OrderLine; None: the whole order (no lines named) or its shipping (`item` says)
    base: Decimal
    item: str = ""
    rule: Rule | None = None
    percent: Decimal | None = None
    flat: Decimal | None = None
    commission: Decimal = ZERO


def price(
    plan: Plan,
    *,
    version: int,
    amount: Decimal,
    currency: str,
    is_returning_customer: bool,
    lines,  # attribution.orders.lines.OrderLines (not imported: the decision imports this package)
    creator_id: int | None,
    month: Month | None = None,
    fx: Decimal | None = ONE,
) -> Priced:
    """The commission `plan` gives an order. `fx`: one unit of the plan's currency in the order's (None when
    no rate is known: flat amounts and thresholds in the plan's currency then count as nothing, and the
    calculation says so). `month`: the creator's month before this order, for a monthly cap and tiers."""
    fx_known = fx is not None
    fx = fx if fx_known else ZERO
    parts, made = _bases(plan, amount, lines)
    base_total = sum((p.base for p in parts), ZERO)
    order_ok = _order_conditions(creator_id, is_returning_customer, amount, fx)
    fallback = next((r for r in plan.order_rules if order_ok(r)), None) if plan.order_rules else None
    for part in parts:
        if part.line is not None and plan.line_rules:
            part.rule = next(
                (r for r in plan.line_rules if order_ok(r) and _line_matches(r, part.line)),
                None,
            )
        if part.rule is None:
            part.rule = fallback
    month = month or NO_MONTH
    tier = _tier(plan, month, base_total) if plan.tiers else None
    per_order_flat: dict[str, Decimal] = {}
    for part in parts:
        rate = part.rule.rate if part.rule else plan.default
        part.percent = tier["percent"] if tier and rate.percent is not None else rate.percent
        if part.percent is None and tier and rate.flat is None:
            part.percent = tier["percent"]
        if part.percent is not None:
            part.commission += part.base * part.percent / HUNDRED
        if rate.flat is not None:
            if part.rule is not None and part.rule.per_line:
                part.flat = rate.flat * fx * part.line.quantity
                part.commission += part.flat
            else:
                per_order_flat.setdefault(_name(part.rule), rate.flat * fx)
    total = sum((p.commission for p in parts), ZERO) + sum(per_order_flat.values(), ZERO)
    limits: list[dict] = []
    if plan.minimum_order_amount is not None and amount < plan.minimum_order_amount * fx:
        limits.append(
            {
                "kind": "minimum_order_amount",
                "threshold": _shown(plan.minimum_order_amount * fx, currency),
                "before": _shown(total, currency),
                "why": f"The order's amount is below the plan's minimum of {plan.minimum_order_amount} "
                f"{plan.currency}: the order is tracked and pays nothing.",
            }
        )
        total = ZERO
    if plan.cap_per_order is not None and total > plan.cap_per_order * fx:
        limits.append(_cap("cap_per_order", total, plan.cap_per_order * fx, currency))
        total = plan.cap_per_order * fx
    if plan.cap_per_creator_month is not None:
        left = max(ZERO, plan.cap_per_creator_month * fx - month.commission)
        if total > left:
            limits.append(_cap("cap_per_creator_month", total, left, currency))
            total = left
    rounded = in_minor_units(total, currency)
    percents = {p.percent for p in parts}
    if (
        len(percents) == 1
        and None not in percents
        and not per_order_flat
        and not limits
        and not any(p.flat for p in parts)
    ):
        rate = min(MAX_RATE, percents.pop().quantize(Decimal("0.01")))  # one rate priced it all: that rate
    else:
        rate = _effective_rate(rounded, base_total, plan)

    def calculation() -> dict:
        made_shown = {k: _shown(v, currency) for k, v in made.items()}
        shown = {
            "plan_version": version,
            # What was priced, so that a re-pricing (an amount update, a new version for unpaid commissions)
            # prices the same order again (attribution.plans.repricing).
            "order": {
                "amount": _plain(amount),
                "is_returning_customer": is_returning_customer,
                "creator_id": creator_id,
                "shipping": _plain(lines.shipping) if lines is not None and lines.named else "0",
                "shipping_tax": _plain(lines.shipping_tax) if lines is not None and lines.named else "0",
                "taxes_included": bool(lines is not None and lines.named and lines.taxes_included),
            },
            "currency": currency,
            "plan_currency": plan.currency,
            "fx_rate": (format(fx, "f") if fx_known else None) if plan.currency != currency else "1",
            "base": {**made_shown, "total": _shown(base_total, currency)},
            "lines": [_line_shown(p, plan, currency) for p in parts],
            "per_order": [{"rule": name, "flat": _shown(v, currency)} for name, v in per_order_flat.items()],
            "tier": tier and {**tier, "percent": str(tier["percent"]), "reached": str(tier["reached"])},
            "limits": limits,
            "total": _shown(rounded, currency),
            "rate_percent": str(rate),
        }
        if not fx_known:
            shown["fx_missing"] = f"No rate from {plan.currency} to {currency}: flat amounts count as 0."
        return shown

    follows = (
        (lines is None or not lines.named)
        and parts[0].rule is None
        and (plan.currency == currency or not plan.has_amounts)  # no rate between them used: fx is 1
        and not plan.needs_month
    )
    return Priced(
        rounded,
        rate,
        tuple(_name(p.rule) for p in parts),
        version=version,
        follows_from_row=follows,
        build=calculation,
    )


def _bases(plan: Plan, amount: Decimal, lines) -> tuple[list[_Line], dict]:
    """Each line's base under the plan's base policy, the shipping as one more part when the base counts
    it, and how the base was made (gross, discounts, tax taken out or added, shipping)."""
    made = {"gross": ZERO, "discounts": ZERO, "tax_taken_out": ZERO, "tax_added": ZERO, "shipping": ZERO}
    if lines is None or not lines.named:  # one line of its whole base: the amount as its way in counted it
        made["gross"] = amount
        return [_Line(None, amount, item="whole order")], made
    policy, parts = plan.base, []
    for line in lines.lines:
        value = line.gross
        made["gross"] += line.gross
        if policy.after_discounts:
            value -= line.discount
            made["discounts"] += line.discount
        value, made = _taxed(value, line.tax, lines.taxes_included, policy.tax, made)
        parts.append(_Line(line, max(value, ZERO)))
    if policy.shipping and lines.shipping:
        value, made = _taxed(lines.shipping, lines.shipping_tax, lines.taxes_included, policy.tax, made)
        made["shipping"] += value
        parts.append(_Line(None, max(value, ZERO), item="shipping"))
    return parts, made


def _taxed(value, tax, included, counts_tax, made):
    if included and not counts_tax:
        made["tax_taken_out"] += tax
        return value - tax, made
    if not included and counts_tax:
        made["tax_added"] += tax
        return value + tax, made
    return value, made


def _order_conditions(creator_id, is_returning, amount, fx):
    customer = "returning" if is_returning else "new"

    def holds(rule: Rule) -> bool:
        when = rule.when
        return (
            (when.creators is None or creator_id in when.creators)
            and (when.customer is None or when.customer == customer)
            and (when.order_amount_at_least is None or amount >= when.order_amount_at_least * fx)
        )

    return holds


def _line_matches(rule: Rule, line) -> bool:
    when = rule.when
    return (
        (when.skus is None or line.sku in when.skus)
        and (when.product_ids is None or line.product_id in when.product_ids)
        and (when.vendors is None or line.vendor in when.vendors)
        and (when.collections is None or not when.collections.isdisjoint(line.collections))
    )


def _tier(plan: Plan, month: Month, base_total: Decimal) -> dict | None:
    """The tier this order reaches (this order included), the highest rate of those reached, or None."""
    reached = {"orders": Decimal(month.orders + 1), "revenue": month.revenue + base_total}
    best = None
    for tier in plan.tiers:
        if reached[tier.metric] >= tier.start and (best is None or tier.percent >= best.percent):
            best = tier
    if best is None:
        return None
    return {
        "metric": best.metric,
        "from": str(best.start),
        "percent": best.percent,
        "retroactive": best.retroactive,
        "reached": reached[best.metric],
    }


def _cap(kind: str, before: Decimal, cap: Decimal, currency: str) -> dict:
    return {"kind": kind, "cap": _shown(cap, currency), "before": _shown(before, currency)}


def _effective_rate(amount: Decimal, base: Decimal, plan: Plan) -> Decimal:
    if base <= 0:
        return min(plan.default.percent or ZERO, MAX_RATE)
    return min(MAX_RATE, (amount * HUNDRED / base).quantize(Decimal("0.01")))


def _name(rule: Rule | None) -> str:
    return rule.name if rule is not None else DEFAULT


def _line_shown(part: _Line, plan: Plan, currency: str) -> dict:
    line = part.line
    shown = {
        "rule": _name(part.rule),
        "base": _shown(part.base, currency),
        "percent": str(part.percent) if part.percent is not None else None,
        "flat": _shown(part.flat, currency) if part.flat is not None else None,
        "commission": _shown(part.commission, currency),
    }
    if line is None:
        return {"item": part.item, **shown}
    return {
        "sku": line.sku,
        "product_id": line.product_id,
        "variant_id": line.variant_id,
        "vendor": line.vendor,
        "collections": list(line.collections),
        "quantity": line.quantity,
        "gross": _plain(line.gross),
        "discount": _plain(line.discount),
        "tax": _plain(line.tax),
        **shown,
    }


def _plain(value: Decimal) -> str:
    return format(value.normalize() + 0, "f")


def _shown(value: Decimal, currency: str) -> str:
    return str(in_minor_units(value, currency))


@dataclass(frozen=True, slots=True)
class KeptLine:
    """A line as a calculation keeps it: the fields of attribution.orders.lines.OrderLine, which the engine
    reads by name. Not that class itself: attribution.orders imports this package (the decision prices with
    it), and the architecture's no-cycle contract keeps plans from importing orders back."""

    gross: Decimal
    quantity: int = 1
    discount: Decimal = ZERO
    tax: Decimal = ZERO
    sku: str = ""
    product_id: str = ""
    variant_id: str = ""
    vendor: str = ""
    collections: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KeptLines:
    lines: tuple[KeptLine, ...] = ()
    shipping: Decimal = ZERO
    shipping_tax: Decimal = ZERO
    taxes_included: bool = False

    @property
    def named(self) -> bool:
        return bool(self.lines)


def kept_order(calculation: dict, *, scale: Decimal = ONE) -> tuple[Decimal, bool, KeptLines | None]:
    """The order a calculation priced (amount, returning customer, lines), every amount times `scale` (an
    amount update keeps each line's share of the order)."""
    order = calculation.get("order") or {}
    amount = Decimal(order.get("amount", calculation["base"]["total"])) * scale
    kept = [
        KeptLine(
            gross=Decimal(line["gross"]) * scale,
            quantity=line["quantity"],
            discount=Decimal(line["discount"]) * scale,
            tax=Decimal(line["tax"]) * scale,
            sku=line["sku"],
            product_id=line["product_id"],
            variant_id=line["variant_id"],
            vendor=line["vendor"],
            collections=tuple(line["collections"]),
        )
        for line in calculation["lines"]
        if "gross" in line
    ]
    if not kept:
        return amount, bool(order.get("is_returning_customer")), None
    lines = KeptLines(
        tuple(kept),
        Decimal(order.get("shipping", "0")) * scale,
        Decimal(order.get("shipping_tax", "0")) * scale,
        bool(order.get("taxes_included")),
    )
    return amount, bool(order.get("is_returning_customer")), lines
