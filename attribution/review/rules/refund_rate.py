"""refund_rate: the creator is flagged by the daily figures (attribution.review.figures): her attributed
orders of the period were cancelled or refunded at more than the brand's multiple of its own rate, with
enough orders to mean something. Her new orders are held while the flag stands."""

from ...models import Rule

RULE = Rule.REFUND_RATE


def judge(case, review) -> str | None:
    return review.refund_outliers.get(case.creator_id)
