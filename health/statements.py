"""Billing statements for brand users: the list, one statement with its lines per creator and currency and
the commissions and adjustments behind them, and its CSV export. The brand is chosen as on every health
page (health.views.choose_brand); a statement of a brand the user may not see is a 404.
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from attribution import selectors
from brands.models import brands_visible_to

from .views import NoBrand, choose_brand, no_brand_page

# The page lists this many commissions of a statement; the CSV export has them all.
COMMISSIONS_SHOWN = 200


@require_safe
@login_required
def statements(request):
    try:
        chosen = choose_brand(request)
    except NoBrand:
        return no_brand_page(request)
    found = selectors.statements_of(chosen.brand)
    totals = selectors.totals_of(found)
    return render(
        request,
        "health/statements.html",
        {**chosen.context, "rows": [(statement, totals[statement.pk]) for statement in found]},
    )


def _statement_or_404(request, pk: int):
    found = selectors.statement_of(brands_visible_to(request.user), pk)
    if found is None:
        raise Http404("No such statement.")
    return found


@require_safe
@login_required
def statement(request, pk: int):
    try:
        found = _statement_or_404(request, pk)
        chosen = choose_brand(request, brand=found.brand)
    except NoBrand:
        return no_brand_page(request)
    summary = selectors.summarize(found)
    commissions = list(selectors.statement_commissions(found)[: COMMISSIONS_SHOWN + 1])
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
            "adjustments": list(selectors.statement_adjustments(found)),
        },
    )


@require_safe
@login_required
def statement_csv(request, pk: int):
    found = _statement_or_404(request, pk)
    response = StreamingHttpResponse(selectors.csv_lines(found), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{selectors.csv_filename(found)}"'
    return response
