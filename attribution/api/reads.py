"""Reads behind the read API (GET /api/Affiliates/orders/<order_id>): what a brand's order and its
commission look like from outside (docs/api.md, "Read API")."""

from attribution.fx.conversion import locked
from attribution.models import Commission, Order
from attribution.money import money, plain
from attribution.plans.shown import calculation as plan_calculation
from attribution.review import holds as review_holds
from attribution.review.runner import holds_in

State = Commission.State


def order_for_reconciliation(*, brand_id: int, order_id: str, is_test: bool) -> dict | None:
    """The read API's view of a brand's own order (docs/api.md, "Read API"); None for another brand's or unknown."""
    order = (
        Order.objects.select_related("commission__statement")
        .filter(brand_id=brand_id, order_id=order_id, is_test=is_test)
        .first()
    )
    if order is None:
        return None
    commission = getattr(order, "commission", None)
    body = {
        "order": {
            "order_id": order.order_id,
            "amount": plain(order.amount),
            "currency": order.currency,
            "is_test": order.is_test,
            "outcome": order.outcome,
            "received_at": order.received_at.isoformat(),
            "trace": order.trace,
        },
        "commission": None,
    }
    if commission is not None:
        body["commission"] = {
            "state": commission.state,
            "amount": money(commission.amount, commission.currency),
            "currency": commission.currency,
            "rate_percent": str(commission.rate_percent),
            # issue 56: how its plan priced it (docs/plans.md); a commission made before plans shows version 1's.
            "plan_version": commission.plan_version,
            "calculation": plan_calculation(commission),
            "order_amount": plain(commission.order_amount),
            "created_at": commission.created_at.isoformat(),
            "cancelled_at": commission.cancelled_at.isoformat() if commission.cancelled_at else None,
            "locked_at": commission.locked_at.isoformat() if commission.locked_at else None,
            "paid_at": commission.paid_at.isoformat() if commission.paid_at else None,
            "paid_amount": money(commission.paid_amount, commission.currency)
            if commission.paid_amount is not None
            else None,
            "statement": f"{billed.month:%Y-%m}" if (billed := commission.billed_statement) else None,
            **reporting(commission),
            "state_changes": [
                {
                    "changed_at": m.changed_at.isoformat(),
                    "from": m.from_state,
                    "to": m.to_state,
                    "cause": m.cause,
                    "request_id": m.request_id,
                }
                for m in commission.state_changes.all()
            ]
            # A pending commission has no moves unless a review released it (issue 38: its trace then has the
            # hold); one never held skips the query.
            if commission.state != State.PENDING or holds_in(order.trace)
            else [],
            # issue 38: its review holds, read only when its trace says a rule held it (docs/review.md).
            "holds": review_holds.shown_all(commission) if holds_in(order.trace) else [],
            "history": [
                {
                    "changed_at": c.changed_at.isoformat(),
                    "old_order_amount": plain(c.old_order_amount),
                    "new_order_amount": plain(c.new_order_amount),
                    "old_amount": money(c.old_amount, commission.currency),
                    "new_amount": money(c.new_amount, commission.currency),
                    "request_id": c.request_id,
                }
                for c in commission.amount_changes.all()
            ],
            # Only a paid commission has adjustments: other reads skip the query.
            "adjustments": [
                {
                    "created_at": a.created_at.isoformat(),
                    "reason": a.reason,
                    "amount": money(a.amount, a.currency),
                    "currency": a.currency,
                    "statement": f"{a.statement.month:%Y-%m}",
                    "request_id": a.request_id,
                }
                for a in commission.adjustments.select_related("statement")
            ]
            if commission.paid_at is not None
            else [],
        }
    return body


def reporting(commission: Commission) -> dict:
    """The commission in its brand's reporting currency as it was locked (docs/currencies.md): `reporting`
    with the rate, its date and source, or null and `reporting_reason` saying why."""
    conversion = locked(commission)
    if conversion is None:
        return {
            "reporting": None,
            "reporting_reason": "Created before currency conversion; not converted yet.",
        }
    if not conversion.converted:
        return {"reporting": None, "reporting_reason": conversion.reason}
    return {
        "reporting": {
            "amount": money(conversion.amount, conversion.currency),
            "currency": conversion.currency,
            "rate": commission.fx_rate,
            "rate_date": conversion.rate_date.isoformat(),
            "source": conversion.source,
        },
        "reporting_reason": None,
    }
