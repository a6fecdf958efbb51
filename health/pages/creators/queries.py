"""Reads behind the Creators page and its CSV (docs/health.md, "Creators"): every creator of a brand on one
row for a period, from a fixed number of grouped queries however many creators the brand has.

An attributed order counts in the period its commission was created in: when the order was received, or for
an order joined by its platform's webhook, when the second of its two arrivals came (docs/health.md). Its
figures are read from its commission as it is now (the commission keeps the order's path and shopper): a
cancel or an update after the period still moves them.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import connections
from django.db.models import Count, Q, Sum

from attribution.models import Click, Commission
from attribution.review import figures
from brands.models import Brand, Creator
from health.pages.concurrent_reads import ConcurrentReads
from health.pages.creators.forms import LocalPeriod

State = Commission.State
ZERO = Decimal(0)


EARNED = (State.LOCKED, State.PAID)


@dataclass
class Money:
    """One creator's (or the brand's) figures in one currency."""

    revenue: Decimal = ZERO  # order totals now, of orders not cancelled
    standing: int = 0  # orders not cancelled: the average's denominator
    earned: Decimal = ZERO  # commissions locked or paid, at their amount now
    pending: Decimal = ZERO
    held: Decimal = ZERO
    paid: Decimal = ZERO  # the amounts statements paid, of commissions not cancelled since

    @property
    def commission(self) -> Decimal:
        """Every commission not cancelled (pending, held, locked, paid), at its amount now."""
        return self.earned + self.pending + self.held

    @property
    def average(self) -> Decimal | None:
        return self.revenue / self.standing if self.standing else None

    def add(self, other: "Money") -> None:
        # Written out: run for every creator and currency of a page, where a loop of getattr/setattr costs.
        self.revenue += other.revenue
        self.standing += other.standing
        self.earned += other.earned
        self.pending += other.pending
        self.held += other.held
        self.paid += other.paid


@dataclass
class Counts:
    """The counts of one creator's orders (or the brand's), whatever their currency."""

    orders: int = 0  # attributed orders of the period (their commissions created in it)
    by_click: int = 0
    by_code: int = 0
    by_shopper: int = 0
    returning: int = 0  # the shop said the shopper had ordered before
    # The review figures (attribution.review.figures), the numbers the review rules judge:
    judged: int = 0  # her orders the refund rate counts (those a reviewer rejected are not)
    cancelled: int = 0  # of which cancelled or refunded
    with_code: int = 0  # orders that sent one of her codes and credited her
    code_only: int = 0  # of which the code credited: no click of hers did

    def add(self, other: "Counts") -> None:
        # Written out, as Money.add.
        self.orders += other.orders
        self.by_click += other.by_click
        self.by_code += other.by_code
        self.by_shopper += other.by_shopper
        self.returning += other.returning
        self.judged += other.judged
        self.cancelled += other.cancelled
        self.with_code += other.with_code
        self.code_only += other.code_only

    @property
    def new(self) -> int:
        return self.orders - self.returning

    def share(self, name: str) -> float | None:
        """`name`'s count as a percentage of the orders, None without orders."""
        return 100 * getattr(self, name) / self.orders if self.orders else None

    @property
    def code_only_share(self) -> float | None:
        """Of the orders that sent her code, the share the code credited, so that came without a click of
        hers (the decision tries the click first): a code shared where she is not (a coupon site) raises it."""
        return 100 * self.code_only / self.with_code if self.with_code else None

    @property
    def refund_rate(self) -> float | None:
        """Cancelled or refunded, as a percentage of the orders the review figures count."""
        return 100 * self.cancelled / self.judged if self.judged else None


@dataclass
class CreatorRow:
    creator_id: int | None  # None for the totals row
    name: str
    is_active: bool = True
    clicks: int | None = 0  # None in the test namespace: clicks are not test or live
    counts: Counts = field(default_factory=Counts)
    money: dict[str, Money] = field(default_factory=dict)  # currency -> figures

    @property
    def conversion(self) -> float | None:
        """Orders per click, as a percentage, where there were clicks."""
        return 100 * self.counts.orders / self.clicks if self.clicks else None

    def money_in(self, currency: str) -> Money:
        return self.money.get(currency) or Money()


@dataclass
class CreatorTable:
    rows: list[CreatorRow]
    totals: CreatorRow
    currencies: list[str]


def figures_by(commissions, *keys: str, refunds: dict | None = None) -> list[tuple]:
    """Counts and money of `commissions` grouped by `keys` (plus the currency): one grouped query over the
    commissions alone, which carry their order's path and shopper. Each row is the keys, the currency and
    the figures `_split` reads. `refunds`: the review figures' refund counts
    (attribution.review.figures.refund_counts), added to the same pass after them."""
    standing = ~Q(state=State.CANCELLED)
    return _rows(
        commissions.order_by()
        .values(*keys, "currency")
        .annotate(
            orders=Count("pk"),
            by_click=Count("pk", filter=Q(attribution="click")),
            by_code=Count("pk", filter=Q(attribution="code")),
            by_shopper=Count("pk", filter=Q(attribution="shopper")),
            returning=Count("pk", filter=Q(is_returning_customer=True)),
            standing=Count("pk", filter=standing),
            revenue=Sum("order_amount", filter=standing),
            earned=Sum("amount", filter=Q(state__in=EARNED)),
            pending=Sum("amount", filter=Q(state=State.PENDING)),
            held=Sum("amount", filter=Q(state=State.HELD)),
            paid=Sum("paid_amount", filter=Q(state=State.PAID)),
            **(refunds or {}),
        )
    )


def _rows(grouped) -> list[tuple]:
    """A grouped query's rows as tuples. On PostgreSQL read from the cursor as psycopg returns them (ints and
    Decimals already): Django's converters would call a function for each of their values, thousands of rows
    on a large brand's page (docs/performance.md). Elsewhere (SQLite keeps decimals as numbers) through
    Django's."""
    reads = connections[grouped.db]  # the request's database (the replica or the primary)
    if reads.vendor != "postgresql":
        return list(grouped.values_list(*grouped.query.values_select, *grouped.query.annotation_select))
    sql, params = grouped.query.sql_with_params()
    with reads.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _split(figures) -> tuple[Counts, Money]:
    """A row of figures_by after its keys and currency: its counts and its money."""
    orders, by_click, by_code, by_shopper, returning, standing, revenue, earned, pending, held, paid = (
        figures[:11]
    )
    judged, cancelled = figures[11:] or (0, 0)
    counts = Counts(orders, by_click, by_code, by_shopper, returning, judged, cancelled)
    money = Money(revenue or ZERO, standing, earned or ZERO, pending or ZERO, held or ZERO, paid or ZERO)
    return counts, money


def creator_table(brand: Brand, period: LocalPeriod, *, is_test: bool) -> CreatorTable:
    """One row per creator of the brand (those without orders too), and the brand's totals, in a fixed number
    of queries: the creators, the clicks per creator (live only), the commissions' figures per creator and
    currency with the review figures' refund counts in the same pass, and the codes with their code-only
    shares. The clicks and the commissions, the reads that grow with the brand's traffic, run on their own
    connections while this thread reads the creators and the code shares (health.pages.concurrent_reads)."""
    span = {"since": period.start, "until": period.end, "is_test": is_test}
    commissions = figures.commissions_of(brand.pk, **span)
    with ConcurrentReads(Commission) as reads:
        grouped = reads.run(
            lambda: figures_by(commissions, "creator_id", refunds=figures.refund_counts(brand.pk))
        )
        clicks = None if is_test else reads.run(lambda: _clicks(brand, period))
        rows = {
            pk: CreatorRow(pk, name, is_active, clicks=None if is_test else 0)
            for pk, name, is_active in Creator.objects.filter(brand=brand)
            .order_by("name", "pk")
            .values_list("pk", "name", "is_active")
        }
        # The code-only share as the review rules compute it (one home: attribution.review.figures), read for
        # the whole period (a code's share over all its orders of it).
        shares = figures.code_shares(brand.pk, recent=None, **span)
    if clicks is not None:
        for creator_id, n in clicks.result():
            if creator_id in rows:
                rows[creator_id].clicks = n
    totals = CreatorRow(None, "All creators", clicks=None if is_test else 0)
    currencies = set()
    for creator_id, currency, *values in grouped.result():
        line = rows.get(creator_id)
        if line is None:  # a creator deleted since: her commissions keep her (PROTECT), so never
            continue
        counts, money = _split(values)
        line.counts.add(counts)
        line.money[currency] = money  # one row per creator and currency
        currencies.add(currency)
    for share in shares.values():
        if share.creator_id in rows:
            rows[share.creator_id].counts.with_code += share.recent_orders
            rows[share.creator_id].counts.code_only += share.recent_code_only
    for line in rows.values():
        totals.counts.add(line.counts)
        if line.clicks is not None:
            totals.clicks += line.clicks
        for currency, money in line.money.items():
            totals.money.setdefault(currency, Money()).add(money)
    return CreatorTable(list(rows.values()), totals, sorted(currencies))


def _clicks(brand: Brand, period: LocalPeriod) -> list[tuple[int, int]]:
    """The period's clicks per creator. click_creator_period_idx (brand, clicked_at, with the creator) answers
    from the index alone, so COUNT(*): counting the ids would read every click's row for its id."""
    return list(
        Click.objects.filter(brand=brand, clicked_at__gte=period.start, clicked_at__lt=period.end)
        .order_by()
        .values("creator_id")
        .annotate(n=Count("*"))
        .values_list("creator_id", "n")
    )


def brand_money(brands, period_start, *, now) -> dict[int, dict[str, Money]]:
    """Each brand's live attributed revenue and commission since `period_start`, per currency: one grouped
    query for the portfolio (brand -> currency -> Money), on commission_brand_time_idx per brand."""
    commissions = Commission.objects.filter(
        brand__in=brands, is_test=False, created_at__gte=period_start, created_at__lt=now
    )
    out: dict[int, dict[str, Money]] = defaultdict(dict)
    for brand_id, currency, *values in figures_by(commissions, "brand_id"):
        out[brand_id][currency] = _split(values)[1]
    return out
