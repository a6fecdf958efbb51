"""The portfolio (/health/portfolio/): every brand on one row for account managers, each linking to that
brand's pages. Staff only (health.pages.access.staff_page); reads go through health.pages.portfolio.queries."""

from datetime import timedelta

from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from health.alerts import queries as alert_queries
from health.pages.access import staff_page
from health.pages.creators.queries import brand_money
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
    for row in rows:
        row.money = sorted(money.get(row.brand_id, {}).items())
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
        },
    )
