"""Billing statements for brand users: the list, one statement with its lines per creator and currency and
the commissions and adjustments behind them, and its CSV export. Both total in the brand's reporting currency,
each currency as billed a click away (docs/billing.md). The brand is chosen as on every health page
(health.pages.access.brand_page); a statement of a brand the user may not see is a 404.
"""

from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from attribution.billing.export import csv_filename, csv_lines
from attribution.billing.reporting import rates_used
from attribution.billing.statements import (
    statement_adjustments,
    statement_commissions,
    statement_of,
    statements_of,
    summarize,
    totals_of,
)
from health.pages.access import brand_page

# The page lists this many commissions of a statement; the CSV export has them all.
COMMISSIONS_SHOWN = 200


@require_safe
@brand_page
def statements(request, chosen):
    found = statements_of(chosen.brand)
    currency = chosen.brand.reporting_currency_now()
    totals = totals_of(found, {chosen.brand.pk: currency})
    return render(
        request,
        "health/statements.html",
        {
            **chosen.context,
            "rows": [(statement, totals[statement.pk]) for statement in found],
            "currency": currency,
            "rates_used": rates_used(currency, [t.reporting for t in totals.values()]),
        },
    )


@require_safe
@brand_page(find=statement_of)
def statement(request, chosen, found, pk: int):
    summary = summarize(found)
    commissions = list(statement_commissions(found)[: COMMISSIONS_SHOWN + 1])
    counted = sum(total.commissions for total in summary.totals)
    return render(
        request,
        "health/statement.html",
        {
            **chosen.context,
            "statement": found,
            "summary": summary,
            "commissions": commissions[:COMMISSIONS_SHOWN],
            "more_commissions": max(counted - COMMISSIONS_SHOWN, 0),
            "adjustments": list(statement_adjustments(found)),
        },
    )


@require_safe
@brand_page(find=statement_of)
def statement_csv(request, chosen, found, pk: int):
    # The reader's zone, taken now: the rows are written after this view has returned.
    lines = csv_lines(found, zone=timezone.get_current_timezone())
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{csv_filename(found)}"'
    return response
