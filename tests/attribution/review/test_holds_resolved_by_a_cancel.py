"""A held commission cancelled before anyone decided (by a cancel request, the shop's platform or an order book's
reconciliation) leaves no hold waiting: its open holds are resolved with it, saying how, so the waiting-hold alert
clears and the pages stop showing the hold as waiting (docs/review.md, "When the order is cancelled")."""

import pytest
from django.utils import timezone

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.models import Commission, CommissionHold
from health.alerts.review.facts import read_review_facts
from tests.attribution.keyed import CANCEL, caller_of, fresh
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify
from tests.attribution.review.helpers import held_commission

pytestmark = pytest.mark.django_db

RECONCILIATIONS = "/api/Affiliates/reconciliations"


def resolution(commission) -> tuple:
    hold = CommissionHold.objects.get(commission=commission)
    return hold.decision, hold.via, hold.note, hold.decided_at == fresh(commission).cancelled_at


def overdue(brand) -> int:
    return read_review_facts([brand.pk], now=timezone.now())[brand.pk].overdue


def test_a_cancel_request_resolves_the_holds_of_a_held_commission(client, brand):
    held = held_commission(brand, "A-1")
    alice = caller_of(brand, "alice")
    assert overdue(brand) == 1

    answer = client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    assert answer.json()["outcome"] == "tracked"
    assert resolution(held) == (
        "cancelled",
        "change",
        "Its order was cancelled by a cancel request before anyone decided.",
        True,
    )
    assert CommissionHold.objects.get(commission=held).request_id == answer["X-Request-ID"]
    assert overdue(brand) == 0


def test_the_shop_s_cancel_resolves_the_holds_of_a_held_commission(client, brand, prop):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    held = held_commission(brand, "5820398473216")  # the order shopify_order() sends
    cancelled = shopify_order(cancelled_at="2026-11-25T09:00:00Z", updated_at="2026-11-25T09:00:00Z")

    answer = post_shopify(client, body_of(cancelled), topic="orders/cancelled", webhook_id="cancel-1")

    assert answer.json()["outcome"] == "tracked", answer.json()
    assert resolution(held) == (
        "cancelled",
        "platform",
        "Its order was cancelled by the shop's platform before anyone decided.",
        True,
    )
    assert overdue(brand) == 0


def test_an_applied_order_book_resolves_the_holds_of_a_held_commission(client, brand, prop):
    held = held_commission(brand, "A-1")
    alice = caller_of(brand, "alice")
    book = "order_id,amount,currency,status\nA-1,100.00,USD,cancelled\n"
    run = client.post(RECONCILIATIONS, book.encode(), content_type="text/csv", **alice.headers).json()

    answer = client.post(f"{RECONCILIATIONS}/{run['reconciliation']['id']}/apply", **alice.headers)

    assert answer.status_code == 200, answer.json()
    assert fresh(held).state == Commission.State.CANCELLED
    assert resolution(held) == (
        "cancelled",
        "book",
        "Its order was cancelled by an order book's reconciliation before anyone decided.",
        True,
    )
    assert overdue(brand) == 0


def test_a_decided_hold_keeps_its_decision_when_the_released_commission_is_cancelled(client, brand):
    from attribution.review import decisions

    held = held_commission(brand, "A-1")
    decisions.decide(held.pk, decisions.RELEASE, note="a real customer", who=decisions.Who(via="admin"))
    alice = caller_of(brand, "alice")

    client.post(CANCEL, {"order_id": "A-1"}, content_type="application/json", **alice.headers)

    hold = CommissionHold.objects.get(commission=held)
    assert (hold.decision, hold.via, hold.note) == ("released", "admin", "a real customer")


def test_no_move_leaves_held_without_saying_how_its_holds_are_resolved(brand):
    held = held_commission(brand, "A-1")

    with pytest.raises(Commission.InvalidMove, match="leaving held needs its holds' resolution"):
        held.move_to(Commission.State.CANCELLED, at=timezone.now(), cause="cancel")

    assert fresh(held).state == Commission.State.HELD
    assert CommissionHold.objects.get(commission=held).decision == ""


def test_the_migration_resolves_the_holds_earlier_cancels_left_waiting(brand):
    from importlib import import_module

    from django.apps import apps

    from attribution.models import CommissionStateChange

    migration = import_module("attribution.migrations.0021_holds_resolved_with_their_commission")
    stranded = held_commission(brand, "A-1")
    at = timezone.now()
    Commission.objects.filter(pk=stranded.pk).update(state="cancelled", cancelled_at=at)
    CommissionStateChange.objects.create(
        brand=brand,
        commission=stranded,
        from_state="held",
        to_state="cancelled",
        changed_at=at,
        cause="reconciliation",
    )
    waiting = held_commission(brand, "A-2")

    migration.resolve_stranded_holds(apps, None)

    assert resolution(stranded) == (
        "cancelled",
        "book",
        "Its order was cancelled by an order book's reconciliation before anyone decided.",
        True,
    )
    assert CommissionHold.objects.get(commission=waiting).decision == ""
