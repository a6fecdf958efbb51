"""Reads behind one creator's page (/health/creators/<id>/): her days, codes, links and latest orders for a
period, each one grouped query (docs/health.md, "A creator's page"). Her orders of the period are her
commissions created in it, as on the Creators page (the creator's foreign-key index), not a scan of the
brand's orders."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDate

from attribution.models import Click, Commission, CommissionHold, CreatorLink, Order
from attribution.review import figures
from brands.hosts import normalize_host
from brands.models import Creator, DiscountCode
from health.alerts.models import Incident
from health.pages.creators.forms import LocalPeriod
from health.pages.creators.list_queries import LOCKED_RATE

LATEST_ORDERS = 25
STANDING = ~Q(state=Commission.State.CANCELLED)


def find_creator(visible_brands, *, pk: int) -> Creator | None:
    """The creator `pk` of a brand the user may see (health.pages.access.brand_page's `find`)."""
    return Creator.objects.select_related("brand").filter(pk=pk, brand__in=visible_brands).first()


def her_commissions(creator: Creator, period: LocalPeriod, *, is_test: bool):
    return Commission.objects.filter(
        creator=creator,
        brand_id=creator.brand_id,
        is_test=is_test,
        created_at__gte=period.start,
        created_at__lt=period.end,
    )


@dataclass
class Day:
    day: date
    orders: int = 0
    revenue: dict[str, Decimal] = field(default_factory=dict)  # currency -> order totals not cancelled
    # The same converted into the brand's reporting currency at each commission's locked rate, and the
    # commissions not cancelled that were not (no rate): docs/currencies.md.
    reporting: Decimal = Decimal(0)
    apart: int = 0


def daily(creator: Creator, period: LocalPeriod, *, is_test: bool, reporting: str = "") -> list[Day]:
    """Every day of the period (the reader's days), with her orders and revenue, and that revenue in the
    `reporting` currency."""
    days = {d: Day(d) for d in period.days}
    converted = Q(reporting_currency=reporting, reporting_amount__isnull=False)
    rows = (
        her_commissions(creator, period, is_test=is_test)
        .annotate(day=TruncDate("created_at", tzinfo=period.zone))
        .order_by()
        .values("day", "currency")
        .annotate(
            n=Count("pk"),
            revenue=Sum("order_amount", filter=STANDING),
            reporting=Sum(F("order_amount") * LOCKED_RATE, filter=STANDING & converted),
            apart=Count("pk", filter=STANDING & ~converted),
        )
    )
    for row in rows:
        day = days.get(row["day"])
        if day is None:
            continue
        day.orders += row["n"]
        if row["revenue"] is not None:
            day.revenue[row["currency"]] = row["revenue"]
        day.reporting += row["reporting"] or 0
        day.apart += row["apart"]
    return list(days.values())


@dataclass
class CodeFigures:
    code: DiscountCode
    carried: int = 0  # orders that sent the code and credited her (attribution.review.figures)
    attributed: int = 0  # of which the code credited, so without a click of hers
    revenue: dict[str, Decimal] = field(default_factory=dict)  # of the orders it credited, not cancelled

    @property
    def code_only_share(self) -> float | None:
        return 100 * self.attributed / self.carried if self.carried else None


def codes(creator: Creator, period: LocalPeriod, *, is_test: bool) -> list[CodeFigures]:
    """Her codes, each with the period's orders that sent it and those it credited: the code-only share as the
    review rules compute it (attribution.review.figures.code_shares, the whole period), and the revenue."""
    found = {c.pk: CodeFigures(c) for c in DiscountCode.objects.filter(creator=creator).order_by("code")}
    if not found:
        return []
    span = {"since": period.start, "until": period.end, "is_test": is_test}
    for share in figures.code_shares(creator.brand_id, recent=None, **span).values():
        if share.code_id in found:
            found[share.code_id].carried = share.recent_orders
            found[share.code_id].attributed = share.recent_code_only
    rows = (
        her_commissions(creator, period, is_test=is_test)
        .filter(STANDING, attribution="code", order__discount_code__in=list(found))
        .order_by()
        .values("order__discount_code_id", "currency")
        .annotate(revenue=Sum("order_amount"))
    )
    for row in rows:
        found[row["order__discount_code_id"]].revenue[row["currency"]] = row["revenue"]
    return list(found.values())


@dataclass
class LinkLine:
    link: CreatorLink
    host: str
    clicks: int  # her clicks of the period on the link's site
    shares_site: bool  # another of her links leads to the same site: the clicks are theirs together


def links(creator: Creator, period: LocalPeriod) -> list[LinkLine]:
    """Her links, each with her clicks of the period on its site. A click records the creator and the site,
    not the link (attribution.links.follow_link), so links to one site share their clicks."""
    found = list(CreatorLink.objects.filter(creator=creator).select_related("discount_code"))
    clicks = dict(
        Click.objects.filter(
            brand_id=creator.brand_id,
            creator=creator,
            clicked_at__gte=period.start,
            clicked_at__lt=period.end,
        )
        .order_by()
        .values("property__host")
        .annotate(n=Count("pk"))
        .values_list("property__host", "n")
    )
    hosts = [normalize_host(link.destination_url) or "" for link in found]
    per_host = defaultdict(int)
    for host in hosts:
        per_host[host] += 1
    return [
        LinkLine(link, host, clicks.get(host, 0), per_host[host] > 1)
        for link, host in zip(found, hosts, strict=True)
    ]


def latest_orders(creator: Creator, *, is_test: bool) -> list[Order]:
    """Her newest attributed orders, whatever the period, with their commission."""
    return list(
        Order.objects.filter(commission__creator=creator, brand_id=creator.brand_id, is_test=is_test)
        .select_related("commission", "discount_code")
        .order_by("-received_at", "-pk")[:LATEST_ORDERS]
    )


HOLDS_SHOWN = 50


def holds(creator: Creator, *, is_test: bool) -> list[CommissionHold]:
    """Her newest holds, waiting or decided, with their order (hold_commission_idx, through her commissions)."""
    return list(
        CommissionHold.objects.filter(
            brand_id=creator.brand_id, commission__creator=creator, commission__is_test=is_test
        )
        .select_related("commission__order")
        .order_by("-held_at", "-pk")[:HOLDS_SHOWN]
    )


# The review alerts name their subject (health.alerts.models.Incident.subject): a refund-rate outlier its
# creator's id, a suspected code leak its discount code's id.
REFUND_OUTLIER, CODE_LEAK = "refund_outlier", "code_leak"
INCIDENTS_SHOWN = 20


def incidents(creator: Creator, code_ids: list[int]) -> list[Incident]:
    """Her incidents, open ones first: her refund-rate outliers and her codes' suspected leaks
    (incident_brand_time_idx)."""
    about_her = Q(rule=REFUND_OUTLIER, subject=str(creator.pk)) | Q(
        rule=CODE_LEAK, subject__in=[str(pk) for pk in code_ids]
    )
    return list(
        Incident.objects.filter(about_her, brand_id=creator.brand_id).order_by(
            F("resolved_at").desc(nulls_first=True), "-opened_at"
        )[:INCIDENTS_SHOWN]
    )
