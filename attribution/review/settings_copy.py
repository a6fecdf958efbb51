"""A brand's review settings and its daily flags, as the order path reads them: a per-process copy per brand
for LOCAL_SECONDS, so a clean order pays a dictionary lookup, not a query. An edit applies at once in the
process that saved it (attribution.review.signals) and within those seconds everywhere else; a refresh of
the figures (daily) replaces the flags the same way."""

import time
from dataclasses import dataclass, field
from decimal import Decimal

from ..models import ReviewFlag, ReviewSettings, Rule


@dataclass(frozen=True)
class Review:
    """One brand's rules that are on, their thresholds and its current outliers."""

    on: frozenset  # Rule values
    refund_rate_multiple: Decimal
    refund_rate_min_orders: int
    refund_rate_days: int
    code_leak_recent_orders: int
    code_leak_jump_points: int
    click_reuse_per_hour: int
    review_days: int
    coupon_domains: frozenset
    refund_outliers: dict = field(default_factory=dict)  # creator id -> evidence
    leaking_codes: dict = field(default_factory=dict)  # discount code id -> evidence

    @classmethod
    def of(cls, row: ReviewSettings, flags=()) -> "Review":
        refunds, codes = {}, {}
        for flag in flags:
            if flag.kind == ReviewFlag.Kind.REFUND_RATE:
                refunds[flag.creator_id] = flag.detail
            else:
                codes[flag.discount_code_id] = flag.detail
        return cls(
            on=frozenset(rule for rule in Rule.values if getattr(row, rule)),
            refund_rate_multiple=row.refund_rate_multiple,
            refund_rate_min_orders=row.refund_rate_min_orders,
            refund_rate_days=row.refund_rate_days,
            code_leak_recent_orders=row.code_leak_recent_orders,
            code_leak_jump_points=row.code_leak_jump_points,
            click_reuse_per_hour=row.click_reuse_per_hour,
            review_days=row.review_days,
            coupon_domains=coupon_domains(row.coupon_domains),
            refund_outliers=refunds,
            leaking_codes=codes,
        )


def coupon_domains(text: str) -> frozenset:
    """The settings' list, one domain a line, lower-cased; blank lines and a leading www. left out."""
    found = set()
    for line in text.splitlines():
        domain = line.strip().lower().rstrip(".")
        domain = domain.removeprefix("www.")
        if domain:
            found.add(domain)
    return frozenset(found)


def settings_of(brand_id: int) -> ReviewSettings:
    """The brand's settings row, or the defaults (unsaved) when it has none."""
    row = ReviewSettings.objects.filter(brand_id=brand_id).first()
    if row is None:
        row = ReviewSettings(brand_id=brand_id)
    return row


# A minute: settings change seldom and the flags daily, and a reload reads two tables (about 2 ms of CPU).
LOCAL_SECONDS = 60
_local: dict[int, tuple[float, Review]] = {}


def review_of(brand_id: int) -> Review:
    """The brand's review as the order path reads it (two small reads per brand per process and period)."""
    now = time.monotonic()
    held = _local.get(brand_id)
    if held is not None and held[0] > now:
        return held[1]
    review = Review.of(settings_of(brand_id), ReviewFlag.objects.filter(brand_id=brand_id))
    _local[brand_id] = (now + LOCAL_SECONDS, review)
    return review


def forget(brand_id: int | None = None) -> None:
    """Drop this process's copy of one brand's review (all brands' when None)."""
    if brand_id is None:
        _local.clear()
    else:
        _local.pop(brand_id, None)
