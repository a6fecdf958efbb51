"""A commission's calculation as the read API, the order page and the CSV show it: the one stored with it,
or, for a commission made before plans, its version 1's computed on read. Version 1 is the brand's rate
times the order amount, both kept on the commission, so the read gives what a backfill would have written
without rewriting every commission row in a migration."""

from .document import parse, rates_document
from .engine import price


def calculation(commission) -> dict:
    """The commission's calculation (attribution.plans.engine's shape)."""
    if commission.calculation:
        return commission.calculation
    plan = parse(rates_document(commission.rate_percent, None, currency=commission.currency))
    made = price(
        plan,
        version=commission.plan_version,
        amount=commission.order_amount,
        currency=commission.currency,
        is_returning_customer=commission.is_returning_customer,
        lines=None,
        creator_id=commission.creator_id,
    ).calculation
    return {**made, "computed_on_read": True}


def rule_names(commission) -> list[str]:
    """The rules that took the commission's lines, each once, in line order ("Default" for the default)."""
    made = calculation(commission)
    names = [line["rule"] for line in made["lines"]] + [p["rule"] for p in made.get("per_order", [])]
    return list(dict.fromkeys(names))
