"""What-if: the decision an order confirmation would get now, under today's codes, clicks, creators and
window, and the commission it would make. Reads only: for the order page's "judged again today" and the
reconciliation's orders that never arrived."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..outcomes import Outcome
from ..parsing import loads_strict
from ..plans.store import price_order
from .confirmation import read_confirmation
from .decision import decide
from .incoming import IncomingOrder
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


def decide_payload_again(payload: dict, *, at: datetime) -> tuple[str, list[dict]] | None:
    """What-if of an order confirmation's body: its outcome and trace at `at`. Reads only; None when it no
    longer resolves to a brand or fails the field rules."""
    _, order = read_confirmation(payload)
    return None if order is None else decide_order_again(order, at=at)


def decide_order_again(
    order: IncomingOrder, *, at: datetime, lookups: Lookups | None = None, via_platform: bool = False
) -> tuple[str, list[dict]] | None:
    """What-if of a typed order (a platform's order, an order confirmation's): its outcome and trace at `at`.
    Reads only; None when it has no brand."""
    decision = _decided(order, at=at, lookups=lookups, via_platform=via_platform)
    return None if decision is None else (str(decision.outcome), decision.trace)


def _decided(order: IncomingOrder, *, at: datetime, lookups: Lookups | None, via_platform: bool = False):
    """The decision the typed `order` gets at `at` (reads only); None when it has no brand."""
    if order.brand is None:
        return None
    return decide(
        brand=order.brand,
        resolution=order.resolution,
        fields=order,
        received_at=at,
        lookups=lookups,
        via_platform=via_platform,
    )


@dataclass(frozen=True)
class Estimate:
    """What an order not received would get: its outcome and, when tracked, its commission."""

    outcome: str
    commission: Decimal | None
    currency: str
    creator_id: int | None
    rules: tuple[str, ...] = ()  # issue 56: the plan's rule that would take each line (attribution.plans)


def would_earn(order: IncomingOrder, *, at: datetime, lookups: Lookups | None = None) -> Estimate | None:
    """The decision a typed `order` would get at `at` under today's rules, and the commission it would create:
    reads only. None when it has no brand (the caller says why)."""
    decision = _decided(order, at=at, lookups=lookups)
    if decision is None:
        return None
    fields = order
    amount, rules = None, ()
    if decision.outcome == Outcome.TRACKED:
        priced = price_order(brand=order.brand, fields=fields, creator_id=decision.creator_id, at=at)
        amount, rules = priced.amount, priced.rules
    return Estimate(str(decision.outcome), amount, fields.currency, decision.creator_id, rules)
