"""What the review alerts read (health.alerts.review.rules), for every brand at once: the holds waiting past
each brand's review time, and the outliers the review figures flagged (attribution.review.figures writes
them, daily). A few queries per evaluation, whatever the number of brands. Test commissions never count.
"""

from datetime import datetime, timedelta

from django.db.models import Count, Min

from attribution.models import CommissionHold, ReviewFlag, ReviewSettings
from health.alerts.review.rules import Flag, ReviewFacts

DEFAULT_REVIEW_DAYS = ReviewSettings._meta.get_field("review_days").default


def read_review_facts(brand_ids, *, now: datetime) -> dict[int, ReviewFacts]:
    """The review facts of each brand in `brand_ids` at `now`."""
    facts = {pk: ReviewFacts(pk, review_days=DEFAULT_REVIEW_DAYS) for pk in brand_ids}
    for brand_id, days in ReviewSettings.objects.filter(brand_id__in=list(facts)).values_list(
        "brand_id", "review_days"
    ):
        facts[brand_id].review_days = days
    _add_overdue(facts, now)
    _add_flags(facts)
    return facts


def _add_overdue(facts: dict[int, ReviewFacts], now: datetime) -> None:
    # One query per distinct review time (brands mostly keep the default): hold_open_idx (brand, held_at)
    # WHERE the hold waits.
    by_days: dict[int, list[int]] = {}
    for f in facts.values():
        by_days.setdefault(f.review_days, []).append(f.brand_id)
    for days, brand_ids in sorted(by_days.items()):
        rows = (
            CommissionHold.objects.filter(
                brand_id__in=brand_ids,
                decision=CommissionHold.Decision.OPEN,
                held_at__lt=now - timedelta(days=days),
                commission__is_test=False,
            )
            .order_by()
            .values("brand_id")
            .annotate(n=Count("commission_id", distinct=True), oldest=Min("held_at"))
        )
        for row in rows:
            facts[row["brand_id"]].overdue, facts[row["brand_id"]].oldest_held_at = row["n"], row["oldest"]


def _add_flags(facts: dict[int, ReviewFacts]) -> None:
    # reviewflag_brand_idx (brand, kind): the few outliers of the last refresh.
    flags = ReviewFlag.objects.filter(brand_id__in=list(facts)).select_related("creator", "discount_code")
    for flag in flags.order_by("id"):
        f = facts[flag.brand_id]
        if flag.kind == ReviewFlag.Kind.CODE_SHARE:
            f.codes[flag.discount_code_id] = Flag(
                flag.discount_code_id, flag.discount_code.code, flag.detail, flag.figures
            )
        else:
            f.creators[flag.creator_id] = Flag(flag.creator_id, flag.creator.name, flag.detail, flag.figures)
