"""The hold rows of a held commission, written with it (attribution.orders.store, attribution.orders.joins) from the review
steps of its order's trace, and the holds as the read API shows them."""

import json

from ..models import Commission, CommissionHold
from .runner import holds_in


def is_held(commission: dict | None) -> bool:
    return commission is not None and commission.get("state") == Commission.State.HELD


def mark(order: dict, commission: dict, steps: list[dict]) -> None:
    """A commission the rules flagged: created held, with the holds' evidence in its order's trace."""
    commission["state"] = Commission.State.HELD
    order["trace"] = [*order["trace"], *steps]


def as_json(order: dict) -> str:
    """The holds as the one-statement write reads them (jsonb_to_recordset: rule, detail)."""
    return json.dumps([{"rule": s["result"], "detail": s["detail"]} for s in holds_in(order["trace"])])


# PostgreSQL: the held commission's holds inside attribution.orders.store's statement, after new_commission.
STATEMENT_PART = f"""new_holds AS (
    INSERT INTO {CommissionHold._meta.db_table} (brand_id, commission_id, rule, detail, held_at, decision, note, via, request_id)
    SELECT new_commission.brand_id, new_commission.id, h.rule, h.detail, new_commission.created_at, '', '', '', ''
    FROM new_commission, jsonb_to_recordset(%(h_holds)s::jsonb) AS h(rule text, detail text)
)"""


def write(commission_pk: int, order: dict, commission: dict) -> None:
    """The holds of a held commission just inserted (the caller's transaction)."""
    CommissionHold.objects.bulk_create(
        CommissionHold(
            brand_id=commission["brand_id"],
            commission_id=commission_pk,
            rule=step["result"],
            detail=step["detail"],
            held_at=commission["created_at"],
        )
        for step in holds_in(order["trace"])
    )


def shown_all(commission: Commission) -> list[dict]:
    """A commission's holds as the read API shows them: [{rule, detail, held_at, resolution}], resolution
    null while waiting, else {decision, note, at}."""
    return [
        {
            "rule": hold.rule,
            "detail": hold.detail,
            "held_at": hold.held_at.isoformat(),
            "resolution": None
            if not hold.decision
            else {"decision": hold.decision, "note": hold.note, "at": hold.decided_at.isoformat()},
        }
        for hold in CommissionHold.objects.filter(commission_id=commission.pk).order_by("held_at", "id")
    ]
