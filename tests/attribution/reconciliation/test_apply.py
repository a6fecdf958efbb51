"""POST /api/Affiliates/reconciliations/<id>/apply: the missing orders are created through the order
confirmation's decision (judged when they were placed), drifted amounts updated and the book's cancels
made, on pending commissions only, each change an outcome row of the `reconciliation` endpoint; once."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from attribution import outcomes
from attribution.models import Commission, CommissionStateChange, Order
from health.log.models import OutcomeEvent
from tests import factories
from tests.attribution.keyed import commission_for
from tests.attribution.reconciliation.conftest import book, rows_of, summary_of

pytestmark = pytest.mark.django_db


BOOK = book(
    "A-1,100.00,USD,completed,,,2026-11-20T10:00:00Z,",
    "A-2,80.00,USD,completed,,,2026-11-20T11:00:00Z,",
    "A-3,50.00,USD,refunded,,,2026-11-21T09:00:00Z,",
    "A-4,120.00,USD,completed,ANA10,,2026-11-21T10:00:00Z,",
    "A-5,$12.00,USD,completed,,,2026-11-21T10:00:00Z,",
)


@pytest.fixture
def book_world(brand, alice, creator):
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")
    commission_for(brand, order_id="A-2", order_amount="100.00")
    commission_for(brand, order_id="A-3", order_amount="50.00")
    return brand


def test_it_creates_updates_and_cancels_each_with_its_outcome_row(
    book_world, alice, upload, apply_run, client
):
    run = summary_of(upload(BOOK, alice))

    answer = apply_run(run["id"], alice)

    assert answer.status_code == 200
    body = answer.json()
    assert body["success"] is True and body["applied"] is True
    assert body["changes"] == {"created": 1, "updated": 1, "cancelled": 1, "kept": 0}
    assert body["message"] == (
        f"Reconciliation {run['id']} applied: 1 order(s) created, 1 amount(s) updated, 1 commission(s) cancelled, "
        "0 row(s) left as they were (each row says why)."
    )
    assert body["reconciliation"]["applied"] is True
    assert body["reconciliation"]["changes"] == body["changes"]
    created = Order.objects.get(brand=book_world, order_id="A-4")
    assert (created.outcome, created.commission.amount, created.page_host) == (
        "tracked",
        Decimal("12.00"),
        "shop.acme.example",
    )
    drifted = Commission.objects.get(order__order_id="A-2")
    assert (drifted.order_amount, drifted.amount) == (Decimal("80.00"), Decimal("8.00"))
    assert drifted.amount_changes.get().request_id == answer["X-Request-ID"]
    cancelled = Commission.objects.get(order__order_id="A-3")
    assert cancelled.state == Commission.State.CANCELLED
    assert cancelled.state_changes.get().cause == CommissionStateChange.Cause.RECONCILIATION

    events = {e.order_id: e for e in OutcomeEvent.objects.all()}
    assert sorted(events) == ["A-2", "A-3", "A-4"]
    for order_id, event in events.items():
        assert (event.endpoint, event.outcome, event.brand_id) == ("reconciliation", "tracked", book_world.pk)
        assert event.request_id == answer["X-Request-ID"] and event.key_prefix == alice.key.prefix
        kept = json.loads(event.request_body)
        assert (kept["reconciliation"], kept["order_id"]) == (run["id"], order_id)
    assert json.loads(events["A-4"].request_body)["line"] == 5
    assert (
        events["A-3"].response_body["message"]
        == "The commission of order A-3 was cancelled: the order book cancelled it."
    )

    rows = {r["order_id"]: r for r in rows_of(client, alice, run["id"])}
    assert [rows[o]["change"] for o in ("A-2", "A-3", "A-4")] == ["updated", "cancelled", "created"]
    assert "change" not in rows["A-1"]


def test_a_second_apply_changes_nothing_and_says_so(book_world, alice, upload, apply_run):
    run = summary_of(upload(BOOK, alice))
    apply_run(run["id"], alice)
    before = (
        OutcomeEvent.objects.count(),
        Order.objects.count(),
        list(Commission.objects.values_list("state", "amount")),
    )

    again = apply_run(run["id"], alice)

    assert again.status_code == 200
    assert again.json()["changes"] == {"created": 0, "updated": 0, "cancelled": 0, "kept": 0}
    assert again.json()["applied"] is True
    assert "was already applied" in again.json()["message"] and "nothing changed" in again.json()["message"]
    assert again.json()["reconciliation"]["changes"] == {
        "created": 1,
        "updated": 1,
        "cancelled": 1,
        "kept": 0,
    }
    after = (
        OutcomeEvent.objects.count(),
        Order.objects.count(),
        list(Commission.objects.values_list("state", "amount")),
    )
    assert after == before


def test_the_same_book_after_an_apply_finds_nothing_to_put_right(book_world, alice, upload, apply_run):
    apply_run(summary_of(upload(BOOK, alice))["id"], alice)

    second = summary_of(upload(BOOK, alice))

    assert second["counts"] == {
        "matched": 4,
        "amount_mismatch": 0,
        "cancelled_at_brand": 0,
        "missing": 0,
        "invalid": 1,
        "not_in_book": 0,
    }
    assert second["commission_at_risk"] == [] and second["commission_difference"] == []


def test_a_missing_order_is_judged_at_its_order_time_not_at_the_apply(
    brand, prop, alice, creator, upload, apply_run
):
    click = factories.ClickFactory(
        property=prop, creator=creator, clicked_at=timezone.now() - timedelta(days=60)
    )
    ordered = (timezone.now() - timedelta(days=55)).strftime("%Y-%m-%dT%H:%M:%SZ")
    late = (timezone.now() - timedelta(days=20)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run = summary_of(
        upload(
            book(
                f"B-1,200.00,USD,completed,,{click.click_id},{ordered},",
                f"B-2,200.00,USD,completed,,{click.click_id},{late},",
            ),
            alice,
        )
    )

    apply_run(run["id"], alice)

    on_time = Order.objects.get(order_id="B-1")
    assert (on_time.outcome, on_time.click_id, on_time.commission.amount) == (
        "tracked",
        click.pk,
        Decimal("20.00"),
    )
    assert Order.objects.get(order_id="B-2").outcome == "expired_click"  # 40 days after the click
    assert OutcomeEvent.objects.get(order_id="B-2").outcome == "expired_click"


def test_a_missing_order_s_commission_keeps_its_path_and_shopper(
    brand, prop, alice, creator, upload, apply_run
):
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    run = summary_of(upload(book("K-1,80.00,USD,completed,ANA10,,,"), alice))

    apply_run(run["id"], alice)

    order = Order.objects.get(order_id="K-1")
    assert (order.attribution, order.is_returning_customer) == ("code", False)
    assert (order.commission.attribution, order.commission.is_returning_customer) == ("code", False)


def test_a_missing_order_is_recorded_on_its_clicks_property(brand, prop, alice, creator, upload, apply_run):
    """The book does not say which storefront took the order; its click's does."""
    second = factories.PropertyFactory(brand=brand, host="eu.acme.example")
    click = factories.ClickFactory(property=second, creator=creator)
    run = summary_of(upload(book(f"C-1,50.00,USD,,,{click.click_id},,"), alice))

    apply_run(run["id"], alice)

    order = Order.objects.get(order_id="C-1")
    assert (order.outcome, order.page_host) == ("tracked", "eu.acme.example")


def test_a_missing_order_without_attribution_is_recorded(brand, alice, upload, apply_run):
    run = summary_of(upload(book("N-1,30.00,USD,,,,,"), alice))

    apply_run(run["id"], alice)

    assert Order.objects.get(order_id="N-1").outcome == "no_attribution"
    event = OutcomeEvent.objects.get()
    assert (event.endpoint, event.outcome, event.http_status) == ("reconciliation", "no_attribution", 200)


def test_a_missing_order_with_an_unknown_click_is_not_created_and_says_why(
    brand, alice, upload, apply_run, client
):
    run = summary_of(upload(book(f"U-1,10,USD,,,clk_{'0' * 32},,"), alice))

    body = apply_run(run["id"], alice).json()

    assert body["changes"] == {"created": 0, "updated": 0, "cancelled": 0, "kept": 1}
    assert not Order.objects.exists() and not OutcomeEvent.objects.exists()
    (row,) = rows_of(client, alice, run["id"])
    assert row["change"] == "kept" and row["change_detail"].startswith("Not created (click_not_found)")


def test_an_order_received_since_the_upload_is_not_created_twice(
    brand, alice, upload, apply_run, api, client
):
    run = summary_of(upload(book("S-1,30.00,USD,,,,,"), alice))
    api.post(
        "/api/order_confirmation",
        {"orderId": "S-1", "orderAmount": "30", "currency": "USD", "domain": "shop.acme.example"},
    )

    body = apply_run(run["id"], alice).json()

    assert body["changes"]["kept"] == 1
    (row,) = rows_of(client, alice, run["id"])
    assert row["change_detail"] == "Received since the upload: nothing to create."
    event = OutcomeEvent.objects.get(endpoint="reconciliation")
    assert event.outcome == "duplicate_order"
    info = outcomes.info(event.outcome, event.endpoint)
    assert not info.needs_action and "since the book was uploaded" in info.label


def test_a_locked_or_paid_commission_is_not_moved_and_its_row_says_why(
    brand, alice, upload, apply_run, client
):
    commission_for(brand, order_id="L-1", state=Commission.State.LOCKED)
    commission_for(brand, order_id="P-1", state=Commission.State.PAID)
    run = summary_of(upload(book("L-1,100.00,USD,cancelled,,,,", "P-1,90.00,USD,completed,,,,"), alice))
    assert run["counts"]["cancelled_at_brand"] == 1 and run["counts"]["amount_mismatch"] == 1

    body = apply_run(run["id"], alice).json()

    assert body["changes"] == {"created": 0, "updated": 0, "cancelled": 0, "kept": 2}
    assert list(Commission.objects.order_by("order__order_id").values_list("state", "amount")) == [
        ("locked", Decimal("10.00")),
        ("paid", Decimal("10.00")),
    ]
    assert not OutcomeEvent.objects.exists()
    rows = rows_of(client, alice, run["id"])
    assert [r["change"] for r in rows] == ["kept", "kept"]
    assert rows[0]["change_detail"].startswith("Not moved: the commission is locked (on a statement)")
    assert rows[1]["change_detail"].startswith("Not moved: the commission is paid (on a statement)")


def test_a_commission_cancelled_since_the_upload_is_left_alone(book_world, alice, upload, apply_run, client):
    run = summary_of(upload(BOOK, alice))
    commission = Commission.objects.get(order__order_id="A-2")
    commission.move_to(
        Commission.State.CANCELLED, at=timezone.now(), cause=CommissionStateChange.Cause.CANCEL
    )

    apply_run(run["id"], alice)

    row = next(r for r in rows_of(client, alice, run["id"]) if r["order_id"] == "A-2")
    assert (row["change"], row["change_detail"]) == (
        "kept",
        "No live commission any more: nothing to change.",
    )


def test_a_brand_whose_storefront_records_orders_gets_none_created(brand, alice, upload, apply_run, client):
    brand.storefront_handles_orders = True
    brand.save()
    run = summary_of(upload(book("H-1,10,USD,,,,,"), alice))

    apply_run(run["id"], alice)

    assert not Order.objects.exists()
    (row,) = rows_of(client, alice, run["id"])
    assert row["change"] == "kept" and "storefront platform's integration" in row["change_detail"]
