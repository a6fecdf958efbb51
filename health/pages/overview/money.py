"""The overview's commission card (docs/health.md, "Overview"): the period's attributed commission not
cancelled, in the brand's reporting currency at each commission's locked rate (docs/currencies.md), with
the commissions that have no rate into it counted apart per currency. One grouped query on
commission_brand_time_idx."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Count, Max, Min, Q, Sum

from attribution.fx.arithmetic import ECB
from attribution.models import Commission
from brands.models import Brand


@dataclass
class PeriodMoney:
    currency: str
    commission: Decimal
    apart: dict  # currency -> commissions not cancelled, not converted into `currency`
    rate_days: tuple  # the first and last publication day of the ECB rates used, or ()


def commission_in_reporting(brand: Brand, *, since, until, is_test: bool) -> PeriodMoney:
    currency = brand.reporting_currency_now()
    converted = Q(reporting_currency=currency, reporting_amount__isnull=False)
    rows = (
        Commission.objects.filter(brand=brand, is_test=is_test, created_at__gte=since, created_at__lt=until)
        .exclude(state=Commission.State.CANCELLED)
        .order_by()
        .values("currency")
        .annotate(
            total=Sum("reporting_amount", filter=converted),
            apart=Count("pk", filter=~converted),
            first=Min("fx_rate_date", filter=converted & Q(fx_source=ECB)),
            last=Max("fx_rate_date", filter=converted & Q(fx_source=ECB)),
        )
    )
    total, apart, days = Decimal(0), {}, set()
    for row in rows:
        total += row["total"] or 0
        if row["apart"]:
            apart[row["currency"]] = row["apart"]
        days.update(d for d in (row["first"], row["last"]) if isinstance(d, date))
    days = sorted(days)
    return PeriodMoney(currency, total, apart, (days[0], days[-1]) if days else ())
