"""The review rules (docs/review.md), each flagging and not flagging, through the order confirmation's own
decision: a flagged order is still `tracked`, its commission created held, each hold's evidence in its trace
and a hold row; a clean one is pending with neither."""

from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.models import Commission, ReviewSettings
from attribution.review import figures, settings_copy
from attribution.review.rules import click_reuse
from attribution.review.runner import Case
from health.log.models import OutcomeEvent
from tests.attribution.review.conftest import ANA_EMAIL
from tests.attribution.review.helpers import (
    click_of,
    commission_of,
    holds_of,
    order,
    past_orders,
    review_steps,
    tracked,
)
from tests.factories import CommissionFactory, CreatorFactory, DiscountCodeFactory, OrderFactory

pytestmark = pytest.mark.django_db

HELD, PENDING = Commission.State.HELD, Commission.State.PENDING


def assert_clean(order_id, brand):
    assert commission_of(order_id, brand).state == PENDING
    assert holds_of(commission_of(order_id, brand)) == []
    assert review_steps(order_id, brand) == []


# --- self_referral ------------------------------------------------------------------------------------------


def test_it_holds_an_order_whose_shopper_is_the_creator_herself(confirm, prop, ana):
    click = click_of(prop, ana)
    body = tracked(confirm(order(clickId=click.click_id, customer_email=f"  {ANA_EMAIL.upper()} ")))

    commission = commission_of("A-1001", prop.brand)
    assert commission.state == HELD
    detail = "the shopper's email is Ana's own (hashed match)"
    assert holds_of(commission) == [("self_referral", detail)]
    assert review_steps("A-1001", prop.brand) == [
        {"signal": "review", "result": "self_referral", "detail": detail}
    ]
    # The answer to the unauthenticated order confirmation says nothing of the hold.
    assert "held" not in body["message"]
    assert OutcomeEvent.objects.get(order_id="A-1001").outcome == "tracked"


def test_it_holds_a_self_referral_by_her_code_too(confirm, prop, ana):
    DiscountCodeFactory(brand=prop.brand, creator=ana, code="ANA10")
    tracked(confirm(order(code="ana10", customer_email=ANA_EMAIL)))

    assert holds_of(commission_of("A-1001", prop.brand))[0][0] == "self_referral"


def test_it_does_not_hold_another_shoppers_order(confirm, prop, ana):
    tracked(confirm(order(clickId=click_of(prop, ana).click_id, customer_email="someone@example.com")))
    assert_clean("A-1001", prop.brand)


def test_it_does_not_hold_a_self_referral_when_the_brand_switched_the_rule_off(confirm, prop, ana):
    ReviewSettings.objects.create(brand=prop.brand, self_referral=False)
    tracked(confirm(order(clickId=click_of(prop, ana).click_id, customer_email=ANA_EMAIL)))
    assert_clean("A-1001", prop.brand)


# --- disposable_email ---------------------------------------------------------------------------------------


def test_it_holds_an_order_from_a_throwaway_address_and_keeps_only_the_verdict(confirm, prop, ana):
    tracked(confirm(order(clickId=click_of(prop, ana).click_id, customer_email="deal.hunter@mailinator.com")))

    commission = commission_of("A-1001", prop.brand)
    assert commission.state == HELD
    [(rule, detail)] = holds_of(commission)
    assert rule == "disposable_email"
    assert "mailinator" not in detail and "deal.hunter" not in detail


def test_it_does_not_hold_an_order_from_an_ordinary_address(confirm, prop, ana):
    tracked(confirm(order(clickId=click_of(prop, ana).click_id, customer_email="deal.hunter@gmail.com")))
    assert_clean("A-1001", prop.brand)


# --- code_leak: the share of code-only orders ---------------------------------------------------------------


@pytest.fixture
def ana10(prop, ana):
    return DiscountCodeFactory(brand=prop.brand, creator=ana, code="ANA10")


def test_it_holds_a_codes_new_code_only_orders_while_its_share_jumped(confirm, prop, ana, ana10):
    now = timezone.now()
    past_orders(prop.brand, ana, code="ANA10", count=50, code_only=41, start=now - timedelta(hours=1))
    past_orders(
        prop.brand, ana, code="ANA10", count=50, code_only=12, start=now - timedelta(days=20), prefix="N"
    )
    [flag] = figures.refresh(prop.brand.id)

    tracked(confirm(order(code="ANA10")))
    tracked(confirm(order(orderId="A-1002", code="ANA10", clickId=click_of(prop, ana).click_id)))

    detail = "code ANA10: 41 of its last 50 orders came without a click from Ana; its normal is 12 of 50"
    assert flag.detail == detail
    assert holds_of(commission_of("A-1001", prop.brand)) == [("code_leak", detail)]
    assert_clean("A-1002", prop.brand)  # her click credited it: not code-only


def test_it_does_not_hold_a_code_whose_share_is_its_normal(confirm, prop, ana, ana10):
    now = timezone.now()
    past_orders(prop.brand, ana, code="ANA10", count=50, code_only=14, start=now - timedelta(hours=1))
    past_orders(
        prop.brand, ana, code="ANA10", count=50, code_only=12, start=now - timedelta(days=20), prefix="N"
    )
    assert figures.refresh(prop.brand.id) == []

    tracked(confirm(order(code="ANA10")))
    assert_clean("A-1001", prop.brand)


def test_the_code_share_figure_reads_per_code_over_a_period(prop, ana, ana10):
    now = timezone.now()
    past_orders(prop.brand, ana, code="ana10", count=30, code_only=9, start=now - timedelta(hours=1))

    shares = figures.code_shares(prop.brand.id, since=now - timedelta(days=7), until=now, recent=20)

    share = shares[ana10.pk]
    assert (share.recent_orders, share.recent_code_only) == (20, 9)
    assert (share.normal_orders, share.normal_code_only) == (10, 0)


def test_the_whole_period_code_share_counts_every_spelling_of_her_code_and_only_her_orders(prop, ana, ana10):
    now = timezone.now()
    start = now - timedelta(hours=1)
    past_orders(prop.brand, ana, code="ana10", count=6, code_only=4, start=start)
    past_orders(prop.brand, ana, code=" ANA10 ", count=5, code_only=1, start=start, prefix="S")
    other = CreatorFactory(brand=prop.brand, name="Bea")
    past_orders(prop.brand, other, code="ANA10", count=7, code_only=7, start=start, prefix="B")  # not hers
    span = {"since": now - timedelta(days=7), "until": now}

    whole = figures.code_shares(prop.brand.id, recent=None, **span)[ana10.pk]
    walked = figures.code_shares(prop.brand.id, recent=1000, **span)[ana10.pk]

    assert (whole.recent_orders, whole.recent_code_only, whole.normal_orders) == (11, 5, 0)
    assert (walked.recent_orders, walked.recent_code_only) == (11, 5)


# --- refund_rate --------------------------------------------------------------------------------------------


def commissions(brand, creator, *, count, cancelled, prefix):
    now = timezone.now()
    for n in range(count):
        CommissionFactory(
            order=OrderFactory(brand=brand, order_id=f"{prefix}-{n}"),
            creator=creator,
            state=Commission.State.CANCELLED if n < cancelled else PENDING,
            created_at=now - timedelta(days=10),
        )


def test_it_holds_the_new_orders_of_a_creator_refunded_far_above_the_brands_rate(confirm, prop, ana):
    commissions(prop.brand, ana, count=20, cancelled=10, prefix="ANA")
    commissions(prop.brand, CreatorFactory(brand=prop.brand, name="Bo"), count=80, cancelled=4, prefix="BO")
    [flag] = figures.refresh(prop.brand.id)

    tracked(confirm(order(clickId=click_of(prop, ana).click_id)))

    detail = (
        "Ana: 10 of her 20 attributed orders of the last 90 days were cancelled or refunded (50%); "
        "the brand's rate is 14% (14 of 100)"
    )
    assert flag.detail == detail
    assert holds_of(commission_of("A-1001", prop.brand)) == [("refund_rate", detail)]


def test_it_does_not_hold_a_creator_with_too_few_orders_to_mean_something(confirm, prop, ana):
    commissions(prop.brand, ana, count=19, cancelled=10, prefix="ANA")
    commissions(prop.brand, CreatorFactory(brand=prop.brand, name="Bo"), count=80, cancelled=4, prefix="BO")
    assert figures.refresh(prop.brand.id) == []

    tracked(confirm(order(clickId=click_of(prop, ana).click_id)))
    assert_clean("A-1001", prop.brand)


def test_the_refund_figures_read_per_creator_and_for_the_brand(prop, ana):
    commissions(prop.brand, ana, count=4, cancelled=1, prefix="ANA")
    now = timezone.now()

    per_creator = figures.creator_refund_rates(prop.brand.id, since=now - timedelta(days=30), until=now)
    brand = figures.brand_refund_rate(prop.brand.id, since=now - timedelta(days=30), until=now)

    assert (per_creator[ana.pk].orders, per_creator[ana.pk].cancelled, per_creator[ana.pk].rate) == (
        4,
        1,
        0.25,
    )
    assert (brand.orders, brand.cancelled) == (4, 1)


# --- click_reuse --------------------------------------------------------------------------------------------


def test_it_holds_the_orders_of_one_click_beyond_five_in_an_hour(confirm, prop, ana):
    click = click_of(prop, ana)
    for n in range(6):
        tracked(confirm(order(orderId=f"A-{n}", clickId=click.click_id)))

    for n in range(5):
        assert_clean(f"A-{n}", prop.brand)
    [(rule, detail)] = holds_of(commission_of("A-5", prop.brand))
    assert rule == "click_reuse"
    assert detail == (
        f"click {click.click_id}: 5 orders from it in the hour before this one already; a shopper makes at most 5"
    )


def test_it_does_not_hold_a_clicks_orders_spread_over_more_than_an_hour(confirm, prop, ana):
    click = click_of(prop, ana, ago=timedelta(days=1))
    for n in range(5):
        OrderFactory(brand=prop.brand, click=click, received_at=timezone.now() - timedelta(hours=2 + n))

    tracked(confirm(order(clickId=click.click_id)))
    assert_clean("A-1001", prop.brand)


def test_a_clean_order_of_a_brand_with_every_rule_off_reads_no_probe(confirm, prop, ana):
    ReviewSettings.objects.create(
        brand=prop.brand,
        self_referral=False,
        disposable_email=False,
        code_leak=False,
        refund_rate=False,
        click_reuse=False,
    )
    click = click_of(prop, ana)
    for n in range(7):
        tracked(confirm(order(orderId=f"A-{n}", clickId=click.click_id)))
    assert not Commission.objects.filter(state=HELD).exists()


def test_a_decision_without_the_clicks_count_probes_for_it(prop, ana):
    """A reconciliation's batch lookups read clicks without their orders of the hour: the rule counts them."""
    click = click_of(prop, ana)
    for _ in range(5):
        OrderFactory(brand=prop.brand, click=click, received_at=timezone.now() - timedelta(minutes=10))
    case = Case(
        brand_id=prop.brand.id,
        creator_id=ana.pk,
        creator_name="Ana",
        creator_email_hash="",
        attribution="click",
        at=timezone.now(),
        click_pk=click.pk,
        click_id=click.click_id,
    )

    assert click_reuse.judge(case, settings_copy.review_of(prop.brand.id)).startswith(
        f"click {click.click_id}: 5 orders"
    )
