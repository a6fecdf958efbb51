"""Applying a reconciliation at scale (docs/reconciliation.md): a large apply goes on in the background
batch by batch and resumes, a failed batch changes nothing of its own, an inactive brand cannot apply, rows
that need no change cost no query, every outcome has its label, and two applies at once change everything
once."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from attribution import outcomes
from attribution.models import BookRow, Order, Reconciliation
from attribution.outcomes import Outcome
from attribution.reconciliation import applying
from health import tasks
from health.log.models import OutcomeEvent
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import book, summary_of

pytestmark = pytest.mark.django_db


def test_a_large_apply_goes_on_in_the_background_and_resumes_where_it_stopped(
    brand, alice, upload, apply_run, settings, monkeypatch
):
    monkeypatch.setattr("attribution.reconciliation.applying.BATCH", 2)
    settings.RECONCILIATION_APPLY_SECONDS = 0  # one batch per request; the task runner has its own budget
    run = summary_of(upload(book(*(f"G-{n},10,USD,,,,," for n in range(5))), alice))

    first = apply_run(run["id"], alice)

    assert first.status_code == 202
    assert (first.json()["applied"], first.json()["reconciliation"]["applying"]) == (False, True)
    assert first.json()["changes"]["created"] == 2
    assert "applied in the background" in first.json()["message"]
    assert applying.unfinished() == [run["id"]]

    assert tasks.continue_reconciliations() == (
        "Carried on 1 reconciliation applies: 3 orders created, 0 commissions changed."
    )

    assert Order.objects.count() == 5 and OutcomeEvent.objects.count() == 5
    done = Reconciliation.objects.get()
    assert done.applied_at is not None and done.changes == {
        "created": 5,
        "updated": 0,
        "cancelled": 0,
        "kept": 0,
    }
    assert applying.unfinished() == []
    assert set(BookRow.objects.values_list("change", flat=True)) == {"created"}


def test_a_failed_batch_changes_nothing_of_its_own_and_the_next_apply_carries_on(
    brand, alice, upload, apply_run, monkeypatch
):
    run = summary_of(upload(book("F-1,10,USD,,,,,", "F-2,10,USD,,,,,"), alice))
    real = applying.confirm

    def fail_on_the_second(order, **kwargs):
        if order.order_id == "F-2":
            return outcomes.Result(Outcome.INSERT_FAILED, "Saving failed.")
        return real(order, **kwargs)

    monkeypatch.setattr(applying, "confirm", fail_on_the_second)
    failed = apply_run(run["id"], alice)

    assert (failed.status_code, failed.json()["outcome"]) == (500, "handler_error")
    assert not Order.objects.exists() and not OutcomeEvent.objects.exists()
    assert set(BookRow.objects.values_list("change", flat=True)) == {""}

    monkeypatch.setattr(applying, "confirm", real)
    assert apply_run(run["id"], alice).json()["changes"]["created"] == 2


def test_an_inactive_brand_cannot_apply(brand, alice, upload, apply_run):
    run = summary_of(upload(book("I-1,10,USD,,,,,"), alice))
    brand.is_active = False
    brand.save()

    answer = apply_run(run["id"], alice)

    assert (answer.status_code, answer.json()["outcome"]) == (400, "unresolved_domain")
    assert not Order.objects.exists()


def test_an_apply_costs_no_query_per_row_that_needs_no_change(brand, alice, upload, apply_run):
    """Matched and invalid rows cost nothing; a batch's reads are made once; each change is its own write."""
    for n in range(600):
        commission_for(brand, order_id=f"M-{n}", order_amount="10.00")
    small = summary_of(
        upload(book(*(f"M-{n},10,USD,,,,," for n in range(10)), "X-1,10,USD,,,,,", "Y-1,x,USD,,,,,"), alice)
    )
    big = summary_of(
        upload(book(*(f"M-{n},10,USD,,,,," for n in range(600)), "X-2,10,USD,,,,,", "Y-2,x,USD,,,,,"), alice)
    )

    def queries_of(run):
        with CaptureQueriesContext(connection) as captured:
            assert apply_run(run["id"], alice).json()["changes"]["created"] == 1
        return len(captured.captured_queries)

    assert queries_of(big) == queries_of(small)


def test_every_outcome_an_apply_can_record_has_a_label_for_the_reconciliation():
    """The outcomes an order confirmation can store (the apply records them), and the commission changes."""
    recordable = [
        Outcome.TRACKED,
        Outcome.NO_ATTRIBUTION,
        Outcome.BLACKLISTED_CODE,
        Outcome.EXPIRED_CLICK,
        Outcome.CROSS_BRAND_CLICK,
        Outcome.PROPERTY_MISMATCH,
        Outcome.BANNED_USER,
        Outcome.UNREGISTERED_CODE,
        Outcome.UNREGISTERED_PROPERTY,
        Outcome.DUPLICATE_ORDER,
    ]
    for outcome in recordable:
        info = outcomes.info(outcome, "reconciliation")
        assert info is not None and info.label, outcome
        # No fix about the thank-you page's snippet: the book's orders did not come through it.
        assert "snippet" not in info.fix and "thank-you" not in info.fix, outcome
    assert "order book" in outcomes.info(Outcome.TRACKED, "reconciliation").label
    assert "order book" in outcomes.info(Outcome.NO_ATTRIBUTION, "reconciliation").label


@pytest.mark.django_db(transaction=True)
def test_two_applies_at_once_change_everything_once(postgres_only, brand, prop, alice, upload):
    run = summary_of(upload(book(*(f"T-{n},10,USD,,,,," for n in range(30))), alice))
    results, errors = [], []

    def apply_once():
        try:
            results.append(applying.apply(Reconciliation.objects.get(pk=run["id"])))
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=apply_once) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    assert Order.objects.count() == 30 and OutcomeEvent.objects.count() == 30
    assert sorted(r.changes["created"] for r in results) == [0, 30]
