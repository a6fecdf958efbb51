"""The review figures, in one place (docs/review.md): how often a creator's attributed orders are cancelled or
refunded against the brand's rate, and how much of a code's use comes without a click from its creator
against its own normal. Read per creator and per code over any period, for the creators page as for the
rules; `refresh` turns them into the brand's flags (attribution.models.ReviewFlag), which the order path
reads from a per-process copy (attribution.review.settings_copy), so no order computes a figure.

Counted: live commissions (test events never), by their creation time; a commission a reviewer rejected is
not a refund. A code's orders are the tracked orders that sent it and credited its creator; its code-only
orders are those the code credited (no click of hers did).
"""

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from brands.models import Creator, DiscountCode

from ..models import Attribution, Commission, CommissionHold, Order, ReviewFlag
from ..outcomes import Outcome
from . import settings_copy

# How far back a code's orders are read: its recent window and, before it, its normal.
CODE_SHARE_DAYS = 180


@dataclass(frozen=True)
class RefundFigure:
    """Attributed orders and how many of them were cancelled or refunded: one creator's, or the brand's."""

    orders: int
    cancelled: int
    creator_id: int | None = None  # None: the brand's
    creator_name: str = ""

    @property
    def rate(self) -> float:
        return self.cancelled / self.orders if self.orders else 0.0


@dataclass(frozen=True)
class CodeShare:
    """A code's recent orders and how many came without a click from its creator, against its normal (its
    orders before the recent ones, in the period)."""

    code_id: int
    code: str
    creator_id: int
    creator_name: str
    recent_orders: int
    recent_code_only: int
    normal_orders: int
    normal_code_only: int

    @property
    def recent_share(self) -> float:
        return self.recent_code_only / self.recent_orders if self.recent_orders else 0.0

    @property
    def normal_share(self) -> float:
        return self.normal_code_only / self.normal_orders if self.normal_orders else 0.0


def commissions_of(brand_id: int, *, since: datetime, until: datetime, is_test: bool = False):
    """The brand's commissions created in [since, until), in one namespace: the orders every refund figure counts,
    and the Creators page's (health.pages.creators). commission_brand_time_idx (brand, test, time) reads
    the range; commissions are written in time order, so the period's rows sit together in the table."""
    return Commission.objects.filter(
        brand_id=brand_id, is_test=is_test, created_at__gte=since, created_at__lt=until
    )


def refund_counts(brand_id: int) -> dict:
    """The refund figure's two counts as aggregates over `commissions_of`, to be grouped as the caller
    needs (per creator here, per creator and currency on the Creators page, in the same pass as its other
    figures): `judged`, the commissions the rate counts, and `cancelled`, those of them cancelled or
    refunded. A commission a reviewer rejected is in neither: it is cancelled, but not a refund. The
    rejected ones are read once and hashed (a reviewer's decisions: few), and looked up for the cancelled
    commissions only (a rejection cancels: attribution.review.decisions), the state being tested first."""
    cancelled = Q(state=Commission.State.CANCELLED)
    rejected = Q(
        pk__in=CommissionHold.objects.filter(
            brand_id=brand_id, decision=CommissionHold.Decision.REJECTED
        ).values("commission_id")
    )
    return {
        "judged": Count("id") - Count("id", filter=cancelled & rejected),
        "cancelled": Count("id", filter=cancelled & ~rejected),
    }


def brand_refund_rate(
    brand_id: int, *, since: datetime, until: datetime, is_test: bool = False
) -> RefundFigure:
    """The brand's attributed orders of the period and how many were cancelled or refunded (`is_test`: of
    its test orders, for the Creators page's test view; the rules read live ones)."""
    counts = commissions_of(brand_id, since=since, until=until, is_test=is_test).aggregate(
        **refund_counts(brand_id)
    )
    return RefundFigure(orders=counts["judged"], cancelled=counts["cancelled"])


def creator_refund_rates(
    brand_id: int, *, since: datetime, until: datetime, creator_id: int | None = None, is_test: bool = False
) -> dict[int, RefundFigure]:
    """Per creator (or one): her attributed orders of the period and how many were cancelled or refunded.
    Grouped by the creator's id alone (her name is not joined to every commission): the names of the few a
    rule flags are read with them (refund_outliers)."""
    rows = commissions_of(brand_id, since=since, until=until, is_test=is_test)
    if creator_id is not None:
        rows = rows.filter(creator_id=creator_id)
    return {
        row["creator_id"]: RefundFigure(
            orders=row["judged"], cancelled=row["cancelled"], creator_id=row["creator_id"]
        )
        for row in rows.values("creator_id").order_by().annotate(**refund_counts(brand_id))
    }


def code_shares(
    brand_id: int,
    *,
    since: datetime,
    until: datetime,
    recent: int | None = 50,
    code_id: int | None = None,
    is_test: bool = False,
) -> dict[int, CodeShare]:
    """Per code (or one): of its last `recent` orders in the period, how many came without a click from its
    creator, and the same share among its orders before them (its normal). With `recent=None` every order of
    the period is recent and there is no normal: the share of the whole period, as the Creators pages show it."""
    codes = DiscountCode.objects.filter(brand_id=brand_id, creator__isnull=False, is_blacklisted=False)
    if code_id is not None:
        codes = codes.filter(pk=code_id)
    by_text = {c.code.lower(): c for c in codes.select_related("creator")}
    if not by_text:
        return {}
    # order_brand_time_idx (brand, -received_at) serves the brand's range.
    orders = Order.objects.filter(
        brand_id=brand_id,
        is_test=is_test,
        outcome=Outcome.TRACKED,
        received_at__gte=since,
        received_at__lt=until,
    ).exclude(code_sent="")
    counted = _whole_period(orders, by_text) if recent is None else _newest_first(orders, by_text, recent)
    return {
        code.pk: CodeShare(
            code_id=code.pk,
            code=code.code,
            creator_id=code.creator_id,
            creator_name=code.creator.name,
            **counted.get(code.pk, _NONE),
        )
        for code in by_text.values()
    }


_NONE = {"recent_orders": 0, "recent_code_only": 0, "normal_orders": 0, "normal_code_only": 0}


def _code_of(by_text: dict[str, DiscountCode], sent: str, creator_id: int | None) -> DiscountCode | None:
    """The code an order sent, when it is one of `by_text` and the order credited its creator."""
    code = by_text.get(sent.strip().lower())
    return code if code is not None and code.creator_id == creator_id else None


def _whole_period(orders, by_text: dict[str, DiscountCode]) -> dict[int, dict]:
    """Every order of the period is recent: the database counts them per text sent and creator (a few rows
    per code, however many orders), and the texts are matched to the codes here."""
    counted: dict[int, dict] = {}
    rows = (
        orders.order_by()
        .values_list("code_sent", "creator_id")
        .annotate(n=Count("id"), by_code=Count("id", filter=Q(attribution=Attribution.CODE)))
    )
    for sent, creator_id, n, by_code in rows:
        code = _code_of(by_text, sent, creator_id)
        if code is not None:
            figure = counted.setdefault(code.pk, dict(_NONE))
            figure["recent_orders"] += n
            figure["recent_code_only"] += by_code
    return counted


def _newest_first(orders, by_text: dict[str, DiscountCode], recent: int) -> dict[int, dict]:
    """Each code's last `recent` orders, and its orders before them (its normal), read newest first."""
    seen: dict[int, list[bool]] = defaultdict(list)  # code id -> code-only flags, newest first
    newest = orders.order_by("-received_at", "-id").values_list("code_sent", "creator_id", "attribution")
    for sent, creator_id, attribution in newest.iterator(chunk_size=2000):
        code = _code_of(by_text, sent, creator_id)
        if code is not None:
            seen[code.pk].append(attribution == Attribution.CODE)
    return {
        pk: {
            "recent_orders": len(flags[:recent]),
            "recent_code_only": sum(flags[:recent]),
            "normal_orders": len(flags[recent:]),
            "normal_code_only": sum(flags[recent:]),
        }
        for pk, flags in seen.items()
    }


# --- the flags the rules read ------------------------------------------------------------------------------


def refund_outliers(brand_id: int, review: settings_copy.Review, *, at: datetime) -> list[tuple[RefundFigure, str]]:
    """Creators whose cancelled share is above the brand's multiple of its own, with enough orders."""
    since = at - timedelta(days=review.refund_rate_days)
    brand = brand_refund_rate(brand_id, since=since, until=at)
    outliers = [
        figure
        for figure in creator_refund_rates(brand_id, since=since, until=at).values()
        if figure.orders >= review.refund_rate_min_orders
        and figure.cancelled > 0
        and figure.rate > float(review.refund_rate_multiple) * brand.rate
    ]
    if not outliers:
        return []
    names = dict(Creator.objects.filter(pk__in=[f.creator_id for f in outliers]).values_list("pk", "name"))
    found = []
    for figure in outliers:
        figure = replace(figure, creator_name=names.get(figure.creator_id, ""))
        found.append((figure, _refund_detail(figure, brand, review.refund_rate_days)))
    return found


def _refund_detail(figure: RefundFigure, brand: RefundFigure, days: int) -> str:
    return (
        f"{figure.creator_name}: {figure.cancelled} of her {figure.orders} attributed orders of the last {days} "
        f"days were cancelled or refunded ({figure.rate:.0%}); the brand's rate is {brand.rate:.0%} "
        f"({brand.cancelled} of {brand.orders})"
    )


def code_leaks(brand_id: int, review: settings_copy.Review, *, at: datetime) -> list[tuple[CodeShare, str]]:
    """Codes whose share of code-only orders, over their last orders, jumped far above their own normal."""
    window = review.code_leak_recent_orders
    found = []
    shares = code_shares(brand_id, since=at - timedelta(days=CODE_SHARE_DAYS), until=at, recent=window)
    for share in shares.values():
        if share.recent_orders < window or share.normal_orders < window:
            continue  # too few orders to know its normal or its recent share
        if (share.recent_share - share.normal_share) * 100 >= review.code_leak_jump_points:
            normal = round(share.normal_share * window)
            found.append(
                (
                    share,
                    f"code {share.code}: {share.recent_code_only} of its last {window} orders came without a "
                    f"click from {share.creator_name}; its normal is {normal} of {window}",
                )
            )
    return found


def refresh(brand_id: int, *, at: datetime | None = None) -> list[ReviewFlag]:
    """Compute the brand's figures and replace its flags with the outliers of the rules that are on."""
    at = at or timezone.now()
    review = settings_copy.Review.of(settings_copy.settings_of(brand_id))
    flags = []
    if "refund_rate" in review.on:
        flags += [
            ReviewFlag(
                brand_id=brand_id,
                kind=ReviewFlag.Kind.REFUND_RATE,
                creator_id=figure.creator_id,
                detail=detail,
                figures={"orders": figure.orders, "cancelled": figure.cancelled},
                computed_at=at,
            )
            for figure, detail in refund_outliers(brand_id, review, at=at)
        ]
    if "code_leak" in review.on:
        flags += [
            ReviewFlag(
                brand_id=brand_id,
                kind=ReviewFlag.Kind.CODE_SHARE,
                creator_id=share.creator_id,
                discount_code_id=share.code_id,
                detail=detail,
                figures={
                    "recent_orders": share.recent_orders,
                    "recent_code_only": share.recent_code_only,
                    "normal_orders": share.normal_orders,
                    "normal_code_only": share.normal_code_only,
                },
                computed_at=at,
            )
            for share, detail in code_leaks(brand_id, review, at=at)
        ]
    with transaction.atomic():
        ReviewFlag.objects.filter(brand_id=brand_id).delete()
        ReviewFlag.objects.bulk_create(flags)
    settings_copy.forget(brand_id)
    return flags
