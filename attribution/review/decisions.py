"""Release and reject a held commission (docs/review.md): the one writer of a hold's resolution. Each decision
moves the commission through Commission.move_to (held -> pending, or held -> cancelled, with its history row)
and resolves its open holds (who, when, why, by which way), in one transaction under the commission's row
lock. The review API, the admin action and the Review page all come here; a commission that is no longer
held is `not_held`, never an error, so a decision sent twice changes nothing the second time.
"""

import logging
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError, transaction
from django.utils import timezone

from config.lib.sql import Row
from health.log.models import OutcomeEvent
from health.log.writer import Receipt, row_values

from ..contract.serializers import ReviewSerializer
from ..models import Commission, CommissionHold, CommissionStateChange
from ..outcomes import Outcome, Result, say

logger = logging.getLogger(__name__)

RELEASE, REJECT = "release", "reject"
_MOVES = {
    RELEASE: (
        Commission.State.PENDING,
        CommissionStateChange.Cause.REVIEW_RELEASE,
        CommissionHold.Decision.RELEASED,
        Outcome.RELEASED,
    ),
    REJECT: (
        Commission.State.CANCELLED,
        CommissionStateChange.Cause.REVIEW_REJECT,
        CommissionHold.Decision.REJECTED,
        Outcome.REJECTED,
    ),
}


@dataclass(frozen=True)
class Who:
    """Who decided and by which way: a user (the admin, the Review page) or a developer key's request."""

    via: str  # CommissionHold.Via
    user: object = None
    request_id: str = ""


def _apply(
    commission: Commission, decision: str, *, note: str, at: datetime, who: Who, alongside=()
) -> Outcome:
    """Decide on a commission read under its row lock (the caller's transaction)."""
    if commission.state != Commission.State.HELD:
        return Outcome.NOT_HELD
    state, cause, resolved, outcome = _MOVES[decision]
    moved_at = max(at, commission.updated_at)  # the history stays in the order the moves were applied
    commission.move_to(
        state,
        at=moved_at,
        cause=cause,
        request_id=who.request_id,
        alongside=alongside,
        resolution={"decision": resolved, "note": note, "decided_by": who.user, "via": who.via},
    )
    return outcome


def decide(
    commission_id: int, decision: str, *, note: str = "", who: Who, at: datetime | None = None
) -> Outcome:
    """Release or reject one commission: `released`, `rejected`, or `not_held`."""
    return decide_many([commission_id], decision, note=note, who=who, at=at)[0][1]


def decide_many(
    commission_ids, decision: str, *, note: str = "", who: Who, at: datetime | None = None
) -> list[tuple[int, Outcome]]:
    """Release or reject several commissions at once, all or none, row-locked in id order (two bulk decisions
    never wait on each other in a cycle): each commission's id and outcome."""
    if decision not in _MOVES:
        raise ValueError(f"decision must be {RELEASE!r} or {REJECT!r}, not {decision!r}")
    at = at or timezone.now()
    with transaction.atomic():
        commissions = list(
            Commission.objects.select_for_update(of=("self",))
            .filter(pk__in=list(commission_ids))
            .order_by("pk")
        )
        return [(c.pk, _apply(c, decision, note=note, at=at, who=who)) for c in commissions]


def summary(outcomes: list[tuple[int, Outcome]]) -> Counter:
    """How many of each outcome, for the admin's and the page's message."""
    return Counter(str(outcome) for _, outcome in outcomes)


# --- POST /api/Affiliates/review --------------------------------------------------------------------------


def review_order(
    *, key, payload, received_at: datetime, request_id: str = "", receipt: Receipt | None = None
) -> Result:
    """The review API: the key's brand's commission of `order_id`, released or rejected with `note`. A decision
    writes the request's outcome row with the move; the other answers leave it to the view."""
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    if not isinstance(payload, dict):
        return result.set(Outcome.INVALID_PARAMS, say("change.not_an_object"))
    result.is_test = ReviewSerializer.asks_for_test(payload)
    checked = ReviewSerializer.check(payload)
    if checked.refused(result, order_id_field="order_id"):
        return result
    values = checked.values
    order_id, decision, note = values["order_id"], values["decision"], values["note"] or ""
    result.is_test = values["test"]
    if not key.brand_is_active:
        return result.set(Outcome.UNRESOLVED_DOMAIN, say("change.brand_inactive"))
    who = Who(via=CommissionHold.Via.API, request_id=request_id)
    try:
        with transaction.atomic():
            commission = (
                Commission.objects.select_for_update(of=("self",))
                .filter(brand_id=key.brand_id, order__order_id=order_id, order__is_test=values["test"])
                .first()
            )
            if commission is None:
                namespace = "test" if values["test"] else "live"
                return result.set(
                    Outcome.ORDER_NOT_FOUND, say("change.not_found", namespace=namespace, order_id=order_id)
                )
            if commission.state != Commission.State.HELD:
                return result.set(
                    Outcome.NOT_HELD, say("review.not_held", order_id=order_id, state=commission.state)
                )
            outcome = _MOVES[decision][3]
            result.set(outcome, say(f"review.{outcome}", order_id=order_id))
            alongside = (Row(OutcomeEvent, row_values(receipt.event(result))),) if receipt else ()
            _apply(commission, decision, note=note, at=received_at, who=who, alongside=alongside)
            result.recorded = receipt is not None
            return result
    except DatabaseError:
        logger.exception("review failed", extra={"brand_id": key.brand_id})
        result.recorded = False
        return result.set(Outcome.HANDLER_ERROR, say("review.failed"))
