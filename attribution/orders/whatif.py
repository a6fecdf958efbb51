"""What-if: the decision an order confirmation would get now, under today's codes, clicks, creators and
window, and the commission it would make. Reads only: for the order page's "judged again today" and the
reconciliation's orders that never arrived."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..outcomes import Outcome, Result
from ..parsing import loads_strict
from ..plans.store import price_order
from .confirmation import parse_confirmation
from .decision import decide
from .event_brand import resolve_event
from .lookups import Lookups


def decide_again(body: str, *, at: datetime) -> tuple[str, list[dict]] | None:
    """What-if: the decision an order confirmation `body` (its text as the outcome log keeps it) would get
    at `at`, under today's codes, clicks, creators and window. Reads only; None when the body is not JSON,
    no longer resolves to a brand or fails the field rules."""
    try:
        payload = loads_strict(body.encode())
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    return decide_payload_again(payload, at=at)


def decide_payload_again(
    payload: dict, *, at: datetime, lookups: Lookups | None = None, via_platform: bool = False
) -> tuple[str, list[dict]] | None:
    """What-if of an order confirmation's fields (or a platform's order read into them): its outcome and trace
    at `at`. Reads only; None when it no longer resolves to a brand or fails the field rules."""
    decided = _decided(payload, at=at, lookups=lookups, via_platform=via_platform)
    if decided is None:
        return None
    _, _, decision = decided
    return str(decision.outcome), decision.trace


def _decided(payload: dict, *, at: datetime, lookups: Lookups | None, via_platform: bool = False):
    """The brand's resolution, the fields and the decision `payload` gets at `at` (reads only); None when it
    does not resolve to a brand or fails the field rules."""
    resolution = resolve_event(payload)
    if resolution.brand is None:
        return None
    fields = parse_confirmation(payload, Result(Outcome.INVALID_PARAMS, ""))
    if fields is None:
        return None
    decision = decide(
        brand=resolution.brand,
        resolution=resolution,
        fields=fields,
        received_at=at,
        lookups=lookups,
        via_platform=via_platform,
    )
    return resolution, fields, decision


@dataclass(frozen=True)
class Estimate:
    """What an order not received would get: its outcome and, when tracked, its commission."""

    outcome: str
    commission: Decimal | None
    currency: str
    creator_id: int | None
    rules: tuple[str, ...] = ()  # issue 56: the plan's rule that would take each line (attribution.plans)


def would_earn(payload: dict, *, at: datetime, lookups: Lookups | None = None) -> Estimate | None:
    """The decision an order confirmation `payload` would get at `at` under today's rules, and the
    commission it would create: reads only. None when it does not resolve to a brand or fails the field
    rules (the caller says why)."""
    decided = _decided(payload, at=at, lookups=lookups)
    if decided is None:
        return None
    resolution, fields, decision = decided
    amount, rules = None, ()
    if decision.outcome == Outcome.TRACKED:
        priced = price_order(brand=resolution.brand, fields=fields, creator_id=decision.creator_id, at=at)
        amount, rules = priced.amount, priced.rules
    return Estimate(str(decision.outcome), amount, fields.currency, decision.creator_id, rules)
