"""Reads behind the Creators page and its CSV (docs/health.md, "Creators"): every creator of a brand on one
row for a period, from a fixed number of grouped queries however many creators the brand has.

An attributed order counts in the period its commission was created in: when the order was received, or for
an order joined by its platform's webhook, when the second of its two arrivals came (docs/health.md). Its
figures are read from its commission as it is now (the commission keeps the order's path and shopper): a
cancel or an update after the period still moves them.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db import connections
from django.db.models import Count, DecimalField, F, Max, Min, Q, Sum, Value
from django.db.models.functions import Cast, NullIf

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
    # The figures of the commissions converted into the brand's reporting currency (docs/currencies.md), and
    # per currency the commissions not cancelled that were not (no rate; another reporting currency then).
    reporting: Money = field(default_factory=Money)
    apart: dict[str, int] = field(default_factory=dict)

    @property
    def conversion(self) -> float | None:
        """Of her clicks, the share that led to an order credited by a click: the orders attributed by click per
        click, as a percentage, where there were clicks. Orders by code or known shopper are not a click's, so
        they are left out (the By code and By shopper shares count them): it never passes 100 %."""
        return 100 * self.counts.by_click / self.clicks if self.clicks else None

    def money_in(self, currency: str) -> Money:
        return self.money.get(currency) or Money()


@dataclass
class CreatorTable:
    rows: list[CreatorRow]
    totals: CreatorRow
    currencies: list[str]
    reporting_currency: str = ""
    rate_days: tuple = ()  # the first and last publication day of the ECB rates behind the reporting figures


# A commission's locked rate, as a number: its order total and paid amount are converted at it on the read (its
# commission amount was converted once, when it was created: reporting_amount).
LOCKED_RATE = Cast(NullIf("fx_rate", Value("")), DecimalField(max_digits=40, decimal_places=28))


def reporting_figures(currency: str) -> dict:
    """The annotations of figures_by for the figures in the reporting `currency`, in _split's order."""
    standing = ~Q(state=State.CANCELLED)
    converted = Q(reporting_currency=currency, reporting_amount__isnull=False)
    return {
        "r_standing": Count("pk", filter=standing & converted),
        "r_revenue": Sum(F("order_amount") * LOCKED_RATE, filter=standing & converted),
        "r_earned": Sum("reporting_amount", filter=Q(state__in=EARNED) & converted),
        "r_pending": Sum("reporting_amount", filter=Q(state=State.PENDING) & converted),
        "r_held": Sum("reporting_amount", filter=Q(state=State.HELD) & converted),
        "r_paid": Sum(F("paid_amount") * LOCKED_RATE, filter=Q(state=State.PAID) & converted),
        "r_apart": Count("pk", filter=standing & ~converted),
        "r_first": Min("fx_rate_date", filter=converted & Q(fx_source="ECB")),
        "r_last": Max("fx_rate_date", filter=converted & Q(fx_source="ECB")),
    }


def figures_by(commissions, *keys: str, refunds: dict | None = None, reporting: str = "") -> list[tuple]:
    """Counts and money of `commissions` grouped by `keys` (plus the currency): one grouped query over the
    commissions alone, which carry their order's path and shopper. Each row is the keys, the currency and
    the figures `_split` reads: with `reporting`, the figures converted into that currency after them
    (reporting_figures); `refunds`: the review figures' refund counts
    (attribution.review.figures.refund_counts), added to the same pass last."""
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
            **(reporting_figures(reporting) if reporting else {}),
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


@dataclass
class Reported:
    """A row's figures in the reporting currency (figures_by with `reporting`)."""

    money: Money
    apart: int  # commissions not cancelled, not converted into it
    first: object  # the first and last publication day of the ECB rates used, or None
    last: object


def _split(figures, *, reporting: bool = False) -> tuple[Counts, Money, Reported | None]:
    """A row of figures_by after its keys and currency: its counts, its money and (with `reporting`) its
    figures in the reporting currency."""
    orders, by_click, by_code, by_shopper, returning, standing, revenue, earned, pending, held, paid = (
        figures[:11]
    )
    reported = None
    rest = figures[11:]
    if reporting:
        r_standing, r_revenue, r_earned, r_pending, r_held, r_paid, apart, first, last = rest[:9]
        rest = rest[9:]
        r_money = Money(
            r_revenue or ZERO, r_standing, r_earned or ZERO, r_pending or ZERO, r_held or ZERO, r_paid or ZERO
        )
        reported = Reported(r_money, apart, first, last)
    judged, cancelled = rest or (0, 0)
    counts = Counts(orders, by_click, by_code, by_shopper, returning, judged, cancelled)
    money = Money(revenue or ZERO, standing, earned or ZERO, pending or ZERO, held or ZERO, paid or ZERO)
    return counts, money, reported


def creator_table(brand: Brand, period: LocalPeriod, *, is_test: bool) -> CreatorTable:
    """One row per creator of the brand (those without orders too), and the brand's totals, in a fixed number
    of queries: the creators, the clicks per creator (live only), the commissions' figures per creator and
    currency with the review figures' refund counts in the same pass, and the codes with their code-only
    shares. The clicks and the commissions, the reads that grow with the brand's traffic, run on their own
    connections while this thread reads the creators and the code shares (health.pages.concurrent_reads)."""
    span = {"since": period.start, "until": period.end, "is_test": is_test}
    commissions = figures.commissions_of(brand.pk, **span)
    reporting = brand.reporting_currency_now()
    with ConcurrentReads(Commission) as reads:
        grouped = reads.run(
            lambda: figures_by(
                commissions, "creator_id", refunds=figures.refund_counts(brand.pk), reporting=reporting
            )
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
    rate_days = set()
    for creator_id, currency, *values in grouped.result():
        line = rows.get(creator_id)
        if line is None:  # a creator deleted since: her commissions keep her (PROTECT), so never
            continue
        counts, money, reported = _split(values, reporting=True)
        line.counts.add(counts)
        line.money[currency] = money  # one row per creator and currency
        currencies.add(currency)
        line.reporting.add(reported.money)
        if reported.apart:
            line.apart[currency] = line.apart.get(currency, 0) + reported.apart
        rate_days.update(d for d in (reported.first, reported.last) if d is not None)
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
        totals.reporting.add(line.reporting)
        for currency, n in line.apart.items():
            totals.apart[currency] = totals.apart.get(currency, 0) + n
    days = sorted(_as_date(d) for d in rate_days)
    return CreatorTable(
        list(rows.values()), totals, sorted(currencies), reporting, (days[0], days[-1]) if days else ()
    )


def _as_date(value):
    """A day as SQLite returns it from MIN/MAX on a raw read (text), or as PostgreSQL does (a date)."""
    return date.fromisoformat(value) if isinstance(value, str) else value


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
