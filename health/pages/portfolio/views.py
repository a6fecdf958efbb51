"""The portfolio (/health/portfolio/): every brand on one row for account managers, each linking to that
brand's pages. Staff only (health.pages.access.staff_page); reads go through health.pages.portfolio.queries."""

from datetime import timedelta

from django.conf import settings
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from attribution.fx.conversion import translate
from health.alerts import queries as alert_queries
from health.pages.access import staff_page
from health.pages.creators.list_queries import brand_money
from health.pages.periods import start_of_day
from health.pages.portfolio import queries as portfolio_queries


@require_safe
@staff_page
def portfolio(request, brands):
    now = timezone.now()
    query = request.GET.get("q", "").strip()
    if query:
        brands = brands.filter(name__icontains=query)
    rows = portfolio_queries.portfolio(brands, now=now)
    # The period's live attributed revenue and commission, per brand and currency (docs/health.md, "Portfolio").
    money = brand_money(
        brands, start_of_day(now.date() - timedelta(days=portfolio_queries.DAYS - 1)), now=now
    )
    # Each brand's totals in the portfolio's currency at the newest rates stored: a sum across brands, not a
    # locked conversion (a brand's own pages use each commission's locked rate; docs/currencies.md).
    currency, rate_days = settings.REPORTING_CURRENCY, set()
    for row in rows:
        row.money = sorted(money.get(row.brand_id, {}).items())
        row.revenue, row.revenue_apart, day = translate(
            {c: m.revenue for c, m in row.money}, to=currency, at=now
        )
        row.commission, row.commission_apart, _ = translate(
            {c: m.commission for c, m in row.money}, to=currency, at=now
        )
        rate_days.add(day)
    return render(
        request,
        "health/portfolio.html",
        {
            "rows": rows,
            "query": query,
            "days": portfolio_queries.DAYS,
            "with_incidents": sum(1 for r in rows if r.open_incidents),
            "service_incidents": alert_queries.open_service_incidents(),
            "worker": alert_queries.worker_status(now),
            "now": now,
            "currency": currency,
            "rate_day": max((d for d in rate_days if d is not None), default=None),
        },
    )
