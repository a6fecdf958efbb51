"""A commission's calculation as the read API, the order page and the CSVs show it: the one stored with it,
else worked out again on read. Two kinds of commission store none (`computed_on_read` says so):
- one made before plans: its version 1 is its own rate times its order amount, both kept on the row, so
  the read gives what a backfill would have written without rewriting every commission row;
- one whose calculation follows from its row (attribution.plans.engine.Priced.follows_from_row): the whole
  order, taken by its plan's default, with no amount converted from the plan's currency and no month read. Its version 1 is its own
  rate too (version 1 is the brand's rates, which an account manager may edit later: the row keeps the rate
  it was priced at); a later version is its brand's stored document, which never changes."""

from functools import lru_cache

from brands.models import PlanVersion

from .cache import kept_versions
from .document import Plan, parse, rates_document
from .engine import price

_RATES = object()  # version 1 of a brand that stored none: the commission's own rate


def plan_of_commission(commission) -> Plan:
    """The plan version that priced `commission`: its brand's stored version (read once per process and
    version), else its own rate (version 1 without a stored calculation, or a brand that stored none)."""
    if commission.plan_version == 1 and not commission.calculation:
        return _own_rate(commission)
    key = (commission.brand_id, commission.plan_version)
    plan = kept_versions.get(key)
    if plan is None:
        document = (
            PlanVersion.objects.filter(brand_id=commission.brand_id, version=commission.plan_version)
            .values_list("document", flat=True)
            .first()
        )
        plan = kept_versions[key] = parse(document) if document is not None else _RATES
    return _own_rate(commission) if plan is _RATES else plan


def _own_rate(commission) -> Plan:
    return _rate_plan(str(commission.rate_percent), commission.currency)


@lru_cache(maxsize=1024)
def _rate_plan(percent: str, currency: str) -> Plan:
    """One rate as a whole plan, parsed once per rate as written and currency (a Plan never changes)."""
    return parse(rates_document(percent, None, currency=currency))


def calculation(commission) -> dict:
    """The commission's calculation (attribution.plans.engine's shape)."""
    if commission.calculation:
        return commission.calculation
    made = price(
        plan_of_commission(commission),
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
