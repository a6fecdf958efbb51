"""The rules' runner: the `Case` the order's decision hands over, the brand's rules that are on, in order
(the probe last), and the trace step of each hold (docs/review.md)."""

from dataclasses import dataclass
from datetime import datetime

from brands.emails import verdict

from . import settings_copy
from .rules import click_reuse, code_leak, disposable_email, refund_rate, self_referral

RULES = (self_referral, disposable_email, code_leak, refund_rate, click_reuse)

STEP_KIND = "review"  # the kind of a hold's step in the trace (attribution.orders.trace.StepKind)


@dataclass(frozen=True)
class Case:
    """What the decision already has about a tracked order, as the rules read it."""

    brand_id: int
    creator_id: int
    creator_name: str
    creator_email_hash: str
    attribution: str  # attribution.models.Attribution
    at: datetime  # when the order is judged (its receipt, or the book's date for a recovery)
    click_pk: int | None = None
    click_id: str = ""
    click_orders_in_hour: int | None = None  # the click's orders of the hour before, when read with it
    code_id: int | None = None
    code: str = ""
    email_hash: str | None = None
    email_disposable: bool = False
    referring_site: str = ""  # a platform's order's referring site, as sent


def step(rule: str, detail: str) -> dict:
    """One hold in the order's trace: {signal: "review", result: <rule>, detail}."""
    return {"signal": STEP_KIND, "result": str(rule), "detail": detail}


def review(case: Case) -> list[dict]:
    """The trace steps of the holds the brand's rules put on this order; empty for a clean order."""
    brand = settings_copy.review_of(case.brand_id)
    steps = []
    for rule in RULES:
        if rule.RULE in brand.on:
            detail = rule.judge(case, brand)
            if detail:
                steps.append(step(rule.RULE, detail))
    return steps


def holds_in(trace: list[dict]) -> list[dict]:
    """The review steps of a stored trace."""
    return [entry for entry in trace if entry.get("signal") == STEP_KIND]


def review_decision(*, brand_id: int, fields, decision, at: datetime) -> list[dict]:
    """The hook in the order's decision (attribution.orders.decision.rows_to_store, for a tracked order): the case from the
    confirmation's fields and the decision, and the holds' trace steps."""
    click, code = decision.click, decision.discount_code
    return review(
        Case(
            brand_id=brand_id,
            creator_id=decision.creator_id,
            creator_name=decision.creator_name,
            creator_email_hash=decision.creator_email_hash,
            attribution=decision.attribution,
            at=at,
            click_pk=click.pk if click is not None else None,
            click_id=click.click_id if click is not None else "",
            click_orders_in_hour=getattr(click, "orders_in_hour", None),
            code_id=code.pk if code is not None else None,
            code=code.code if code is not None else "",
            email_hash=fields.email_hash,
            email_disposable=verdict(fields.email_hash),
            referring_site=fields.referring_site,
        )
    )
