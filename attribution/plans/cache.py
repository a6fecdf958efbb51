"""Parsed plans kept in the process per brand and version (a version never changes, so nothing expires):
an order is priced from its brand's resolution (brands.resolution.BrandInfo.plans) with no query and no
parse. Version 1 is the brand's rates as its rate fields hold them now (with the base the migration carried
over when it stored one), kept per rates."""

from collections import OrderedDict
from decimal import Decimal

from .document import Plan, parse, rates_document

MAX_PLANS = 4096
_parsed: OrderedDict[tuple, Plan] = OrderedDict()
# The versions that priced stored commissions, read again to re-price one (attribution.plans.repricing).
kept_versions: dict[tuple[int, int], object] = {}


def plan_of(brand, at, *, load) -> tuple[int, Plan]:
    """The version of `brand`'s plan (a BrandInfo) in effect at `at`, parsed; `load(brand_id, version)` reads
    a stored version's document, once per process and version."""
    version, stored = brand.plan_at(at)
    if version == 1:  # the brand's rates, as its rate fields say now (an account manager may edit them)
        key = (brand.id, 1, stored, brand.commission_rate_percent, brand.returning_commission_rate_percent)
    else:
        key = (brand.id, version)
    plan = _parsed.get(key)
    if plan is None:
        document = load(brand.id, version) if stored else None
        if version == 1:
            plan = parse(with_rates(document, brand)) if document is not None else rates_plan(brand)
        else:
            plan = parse(document)
        _parsed[key] = plan
        if len(_parsed) > MAX_PLANS:
            _parsed.popitem(last=False)
    return version, plan


def with_rates(document: dict, brand) -> dict:
    """A stored version 1 with the brand's rates as its rate fields hold them now: version 1 is the brand's
    rates (an edit of them in the admin still applies until the brand saves a plan), with the base and
    currency the migration carried over."""
    rates = rates_document(
        brand.commission_rate_percent, brand.returning_commission_rate_percent, currency=document["currency"]
    )
    return {**document, "default": rates["default"], "rules": rates["rules"]}


def rates_plan(brand) -> Plan:
    """Version 1 made of a brand's rates (a BrandInfo or a Brand)."""
    returning: Decimal | None = brand.returning_commission_rate_percent
    return parse(
        rates_document(brand.commission_rate_percent, returning, currency=brand.reporting_currency or "USD")
    )


def forget() -> None:
    """Drop this process's plans (tests start from their own brands, whose ids a database may reuse)."""
    _parsed.clear()
    kept_versions.clear()
