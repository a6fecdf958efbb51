"""The trace of an order confirmation's decision: its steps in the order it took them (every signal it consulted,
and the other steps of the order's path: a join, a hold, the sync, the lines, the plan), each with its kind, its
result and a sentence of facts (docs/decisions.md, "The decision's trace").

It is written by attribution.orders.decision while the decision is taken and stored with the order, so
support reads the decision as it was, not one rebuilt after codes, clicks and creators changed. A signal
that was not sent is not listed (a direct order has an empty trace). The details name only what the
outcome log already keeps (click ids, codes as sent, hosts) and creators' names; never an email or its
hash.
"""

from datetime import timedelta
from enum import StrEnum


class StepKind(StrEnum):
    """What a step of the trace is about: a signal the decision weighed (click, code, shopper), or another
    step of the order's path. Stored as each step's "signal" key (the read API's), so these strings stay."""

    CLICK = "click"
    CODE = "code"
    SHOPPER = "shopper"
    # Not a signal the decision weighs: where the signals came from when one order arrived by two paths
    # (the storefront platform's webhook and the order confirmation; attribution.orders.joins).
    JOIN = "join"
    # Not a signal either: a review rule that held the commission (attribution.review; result: the rule).
    REVIEW = "review"
    # Nor this: the platform's nightly sync brought the order, which no webhook had delivered
    # (attribution.platforms.sync).
    SYNC = "sync"
    # Nor this: the order's lines were sent but could not be read; the order was judged on its amount alone
    # (attribution.orders.lines; issue 56).
    LINES = "lines"
    # Nor this: the commission plan's rules that priced the commission (issue 56, docs/plans.md; result:
    # priced), noted for a brand whose plan has a version beyond its rates.
    PLAN = "plan"


class StepResult(StrEnum):
    ATTRIBUTED = "attributed"
    # click
    CLICK_NOT_FOUND = "click_not_found"
    CROSS_BRAND_CLICK = "cross_brand_click"
    PROPERTY_MISMATCH = "property_mismatch"
    EXPIRED_CLICK = "expired_click"
    # click or code
    BANNED_USER = "banned_user"
    # code
    UNREGISTERED_CODE = "unregistered_code"
    BLACKLISTED_CODE = "blacklisted_code"
    # known shopper
    NOT_KNOWN = "not_known"
    # the platform's order and the order confirmation
    JOINED = "joined"
    # the platform's nightly sync
    RECOVERED = "recovered"
    # the order's lines
    IGNORED = "ignored"
    # the commission plan
    PRICED = "priced"


# What each kind of step can answer, in the docs' order (docs/api.md, "The decision's trace").
RESULTS = {
    StepKind.CLICK: (
        StepResult.ATTRIBUTED,
        StepResult.CLICK_NOT_FOUND,
        StepResult.CROSS_BRAND_CLICK,
        StepResult.PROPERTY_MISMATCH,
        StepResult.EXPIRED_CLICK,
        StepResult.BANNED_USER,
    ),
    StepKind.CODE: (
        StepResult.ATTRIBUTED,
        StepResult.UNREGISTERED_CODE,
        StepResult.BLACKLISTED_CODE,
        StepResult.BANNED_USER,
    ),
    StepKind.SHOPPER: (StepResult.ATTRIBUTED, StepResult.NOT_KNOWN),
    StepKind.JOIN: (StepResult.JOINED,),
    StepKind.SYNC: (StepResult.RECOVERED,),
    StepKind.LINES: (StepResult.IGNORED,),
    StepKind.PLAN: (StepResult.PRICED,),
}

KIND_LABELS = {
    StepKind.CLICK: "Creator link click",
    StepKind.CODE: "Discount code",
    StepKind.SHOPPER: "Known shopper",
    StepKind.JOIN: "Platform order and order confirmation",
    StepKind.REVIEW: "Review rule: commission held",
    StepKind.SYNC: "Recovered by the platform's sync",
    StepKind.LINES: "The order's lines",
    StepKind.PLAN: "Commission plan",
}


def step(kind: StepKind, result: StepResult, detail: str) -> dict:
    """One entry of a trace, as stored and as the read API shows it."""
    return {"signal": str(kind), "result": str(result), "detail": detail}


def age(elapsed: timedelta) -> str:
    """How long before the order a click was made, in words."""
    days = elapsed.days
    if days >= 1:
        return f"{days} day{'s' if days != 1 else ''}"
    hours = int(elapsed.total_seconds() // 3600)
    if hours >= 1:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return "less than an hour"


# --- the sentences of each result ---------------------------------------------------------------------


def click_attributed(click_id: str, creator: str, elapsed: timedelta, window_days: int) -> dict:
    return step(
        StepKind.CLICK,
        StepResult.ATTRIBUTED,
        f"click {click_id} on {creator}'s link, {age(elapsed)} before the order; the window is {window_days} days",
    )


def click_not_found(click_id: str) -> dict:
    return step(StepKind.CLICK, StepResult.CLICK_NOT_FOUND, f"no click of any brand has the id {click_id}")


def cross_brand_click(click_id: str) -> dict:
    return step(
        StepKind.CLICK,
        StepResult.CROSS_BRAND_CLICK,
        f"click {click_id} was made on another brand's creator link",
    )


def property_mismatch(click_id: str, click_host: str, order_host: str) -> dict:
    return step(
        StepKind.CLICK,
        StepResult.PROPERTY_MISMATCH,
        f"click {click_id} was made for {click_host or 'another property'}; the order came from {order_host or 'an unknown host'}",
    )


def expired_click(click_id: str, elapsed: timedelta, window_days: int) -> dict:
    return step(
        StepKind.CLICK,
        StepResult.EXPIRED_CLICK,
        f"click {click_id} was made {age(elapsed)} before the order; the window is {window_days} days",
    )


def click_banned(click_id: str, creator: str) -> dict:
    return step(
        StepKind.CLICK,
        StepResult.BANNED_USER,
        f"click {click_id} is on the link of {creator}, an inactive creator",
    )


def code_attributed(code: str, creator: str) -> dict:
    return step(StepKind.CODE, StepResult.ATTRIBUTED, f"code {code} belongs to {creator}")


def unregistered_code(code: str) -> dict:
    return step(StepKind.CODE, StepResult.UNREGISTERED_CODE, f"code {code} is not registered for this brand")


def blacklisted_code(code: str) -> dict:
    return step(StepKind.CODE, StepResult.BLACKLISTED_CODE, f"code {code} is blacklisted: it credits no one")


def code_banned(code: str, has_creator: bool) -> dict:
    detail = (
        f"code {code} belongs to an inactive creator" if has_creator else f"code {code} belongs to no creator"
    )
    return step(StepKind.CODE, StepResult.BANNED_USER, detail)


def shopper_attributed(creator: str) -> dict:
    return step(
        StepKind.SHOPPER, StepResult.ATTRIBUTED, f"the shopper's email is known as a customer of {creator}"
    )


def shopper_not_known() -> dict:
    return step(
        StepKind.SHOPPER,
        StepResult.NOT_KNOWN,
        "the shopper's email is not known for any active creator of the brand",
    )


def joined(*, platform: str, first: str, taken: list[str]) -> dict:
    """One order arrived by the platform's webhook and by the order confirmation: which came first, and what
    the decision took from the order confirmation because the platform's order carried none."""
    detail = f"the {platform} order and the order confirmation are one order; the {first} came first"
    if taken:
        detail += (
            "; taken from the order confirmation, which the platform's order did not carry: "
            + ", ".join(taken)
        )
    return step(StepKind.JOIN, StepResult.JOINED, detail)


def lines_ignored(problem: str) -> dict:
    return step(
        StepKind.LINES,
        StepResult.IGNORED,
        f"The order's lines could not be read ({problem}); the order was judged on its amount alone.",
    )


def plan_priced(calculation: dict) -> dict:
    """The commission plan's rules that priced the commission: each line's rule, and the total."""
    lines = calculation["lines"]
    taken = "; ".join(
        f"{line.get('sku') or line.get('product_id') or line.get('item') or 'line'} by {line['rule']}"
        for line in lines
    )
    return step(
        StepKind.PLAN,
        StepResult.PRICED,
        f"plan version {calculation['plan_version']}: {taken}; {calculation['total']} {calculation['currency']}",
    )


def winning_index(trace: list[dict]) -> int | None:
    """The step that attributed the order, when one did."""
    for index, entry in enumerate(trace):
        if entry.get("result") == StepResult.ATTRIBUTED:
            return index
    return None


# How the order page says each result (the docs' outcome reference gives each its fix).
RESULT_LABELS = {
    StepResult.ATTRIBUTED: "credited the creator",
    StepResult.CLICK_NOT_FOUND: "no such click",
    StepResult.CROSS_BRAND_CLICK: "another brand's click",
    StepResult.PROPERTY_MISMATCH: "click made for another property",
    StepResult.EXPIRED_CLICK: "click older than the window",
    StepResult.BANNED_USER: "creator inactive",
    StepResult.UNREGISTERED_CODE: "code not registered",
    StepResult.BLACKLISTED_CODE: "code blacklisted",
    StepResult.NOT_KNOWN: "shopper not known",
    StepResult.JOINED: "one order, two paths",
    StepResult.IGNORED: "ignored: judged on the order's amount",
    StepResult.PRICED: "priced by its rules",
    # A review step's result is its rule (attribution.models.Rule; docs/review.md).
    "self_referral": "held: the shopper is the creator",
    "disposable_email": "held: throwaway email address",
    "code_leak": "held: code leaked to coupon sites",
    "refund_rate": "held: refund rate far above the brand's",
    "click_reuse": "held: one click, too many orders",
}


def readable(trace: list[dict]) -> list[dict]:
    """The trace with each step's labels and whether it won, for the pages and the admin."""
    won = winning_index(trace)
    return [
        {
            **entry,
            "signal_label": KIND_LABELS.get(entry.get("signal"), entry.get("signal", "")),
            "result_label": RESULT_LABELS.get(entry.get("result"), entry.get("result", "")),
            "won": index == won,
        }
        for index, entry in enumerate(trace)
    ]
