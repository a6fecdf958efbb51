"""The Creators pages (docs/health.md, "Creators"): what each creator of a brand brings, costs and risks
for a period, its CSV, and one creator's page. Every page goes through health.pages.access.brand_page;
reads go through health.pages.creators.list_queries (the list) and creator_queries (one creator)."""

from urllib.parse import urlencode

from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from attribution.fx.sentences import rates_used
from health.pages.access import brand_page
from health.pages.creators import by_rule
from health.pages.creators import creator_queries as her
from health.pages.creators import table as creator_table
from health.pages.creators.chart import day_charts
from health.pages.creators.forms import PERIODS, CreatorPeriodForm
from health.pages.creators.list_queries import creator_table as read_table

ROWS_SHOWN = 100


def _choices(request):
    """The period (in the reader's zone) and namespace the page asks for, with the form that chose them."""
    form = CreatorPeriodForm(request.GET)
    period = form.get_period(timezone.now(), timezone.get_current_timezone())
    namespace = "test" if request.GET.get("ns") == "test" else "live"
    return form, period, namespace


def _period_query(request) -> str:
    """The query string that keeps the brand, period and namespace from one Creators page to another."""
    kept = {k: request.GET[k] for k in ("brand", "period", "from", "to", "ns") if request.GET.get(k)}
    return urlencode(kept)


@require_safe
@brand_page
def creators(request, chosen):
    form, period, namespace = _choices(request)
    table = read_table(chosen.brand, period, is_test=namespace == "test")
    sort = creator_table.sort_key(request.GET.get("sort"), table)
    descending = request.GET.get("dir", "desc" if sort != "name" else "asc") != "asc"
    rows = creator_table.sort_rows(table, sort, descending)
    # The first ROWS_SHOWN by the chosen sort (the totals and the CSV have every creator): a brand with
    # thousands of creators gets a page that loads at once; "Show all" lists them all.
    show_all = request.GET.get("all") == "1"
    shown = rows if show_all else rows[:ROWS_SHOWN]
    brand_rate = table.totals.counts.refund_rate
    # The money in the brand's reporting currency, or (one click away) each currency as paid.
    each_currency = request.GET.get("money") == "each"
    money = (
        creator_table.money_columns(table.currencies)
        if each_currency
        else creator_table.reporting_columns(table.reporting_currency)
    )
    # Two tables with the same rows in the same order: the counts and shares, then the money.
    tables = [
        {
            "headers": creator_table.headers(columns, sort, descending),
            "rows": [
                {
                    "row": row,
                    "cells": _cells(
                        row, columns, high_refunds=_above_brand(row.counts.refund_rate, brand_rate)
                    ),
                    "high_refunds": _above_brand(row.counts.refund_rate, brand_rate),
                }
                for row in shown
            ],
            "totals": _cells(table.totals, columns),
        }
        for columns in (creator_table.count_columns(), money)
    ]
    return render(
        request,
        "health/creators.html",
        {
            **chosen.context,
            "form": form,
            "periods": PERIODS,
            "period": period,
            "namespace": namespace,
            "table": table,
            "counts_table": tables[0],
            "money_table": tables[1],
            "sort_choices": creator_table.sort_choices(table.currencies, table.reporting_currency),
            "each_currency": each_currency,
            "rates_used": rates_used(
                table.reporting_currency,
                table.rate_days,
                ["ECB"],
                converted=table.totals.reporting.standing > 0 or table.totals.reporting.commission > 0,
            ),
            "brand_refund_rate": brand_rate,
            "period_query": _period_query(request),
            "sort": sort,
            "descending": descending,
            "shown": len(shown),
            "cut": len(shown) < len(rows),
        },
    )


def _cells(row, columns, *, high_refunds: bool = False) -> list[tuple]:
    """(column, text, css class) of each figure of `row`: worked out here, once, for up to thousands of cells."""
    return [
        (
            c,
            creator_table.shown(creator_table.value(row, c.key), c),
            "num alert" if high_refunds and c.key == "refund_rate" else "num",
        )
        for c in columns
    ]


def _above_brand(rate: float | None, brand_rate: float | None) -> bool:
    """A creator's cancel and refund rate more than twice the brand's (the review rule's own measure)."""
    return rate is not None and brand_rate is not None and rate > 2 * brand_rate


@require_safe
@brand_page
def export(request, chosen):
    _, period, namespace = _choices(request)
    if request.GET.get("by") == "rule":  # a line per creator, currency and plan rule (docs/plans.md)
        lines, kind = by_rule.csv_lines(chosen.brand, period, namespace=namespace), "creators-by-rule"
    else:
        table = read_table(chosen.brand, period, is_test=namespace == "test")
        lines, kind = creator_table.csv_lines(table, period, namespace=namespace), "creators"
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    name = (
        f"{kind}-{slugify(chosen.brand.name) or chosen.brand.pk}-{namespace}-"
        f"{period.first_day:%Y%m%d}-{period.last_day:%Y%m%d}.csv"
    )
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_safe
@brand_page(find=her.find_creator)
def creator(request, chosen, found, pk: int):
    form, period, namespace = _choices(request)
    is_test = namespace == "test"
    reporting = chosen.brand.reporting_currency_now()
    days = her.daily(found, period, is_test=is_test, reporting=reporting)
    totals: dict[str, object] = {}
    for day in days:
        for currency, amount in day.revenue.items():
            totals[currency] = totals.get(currency, 0) + amount
    codes = her.codes(found, period, is_test=is_test)
    orders_charts = day_charts([(d.day, d.orders) for d in days], title="Orders per day", unit="orders")
    # The revenue chart is drawn in the brand's reporting currency (docs/currencies.md); each currency as paid
    # is listed under the total.
    revenue_charts = (
        day_charts(
            [(d.day, d.reporting) for d in days], title=f"Revenue per day, {reporting}", unit=reporting
        )
        if totals
        else None
    )
    return render(
        request,
        "health/creator.html",
        {
            **chosen.context,
            "creator": found,
            "form": form,
            "periods": PERIODS,
            "period": period,
            "namespace": namespace,
            "orders_total": sum(d.orders for d in days),
            "revenue_totals": sorted(totals.items()),
            "main_currency": reporting,
            "reporting_total": sum((d.reporting for d in days), 0),
            "apart": sum(d.apart for d in days),
            "orders_charts": orders_charts,
            "revenue_charts": revenue_charts,
            "codes": codes,
            "holds": her.holds(found, is_test=is_test),
            "incidents": her.incidents(found, [line.code.pk for line in codes]),
            "links": her.links(found, period),
            "latest": her.latest_orders(found, is_test=is_test),
            "period_query": _period_query(request),
        },
    )
