"""The alert rules, with a clock the tests move by hand (docs/alerts.md): each fires when it should,
stays quiet when it should not, resolves by itself, and is told exactly once per flip."""

from datetime import timedelta

import pytest

from attribution.durability import spool
from attribution.outcomes import Outcome
from health.alerts.descriptions import describe
from health.alerts.evaluation import evaluate
from health.alerts.models import AlertRuleSet, Incident, Notification
from tests import factories
from tests.health.alerting import T0, history, log

pytestmark = pytest.mark.django_db

MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)


def opened(result):
    return [(i.rule, i.subject) for i in result.opened]


def flips(incident):
    return list(Notification.objects.filter(incident=incident).order_by("id").values_list("kind", flat=True))


# --- silence ----------------------------------------------------------------------------------------


def test_silence_waits_for_the_floor_then_opens_when_usual_orders_are_missing(busy):
    assert opened(evaluate(now=T0 + 59 * MIN)) == []

    result = evaluate(now=T0 + 61 * MIN)

    assert opened(result) == [("silence", "")]
    incident = result.opened[0]
    assert incident.counts == {
        "last_order_at": T0.isoformat(),
        "silent_minutes": 61,
        "usual_orders": 10.2,
        "via": "order_confirmation",
    }
    assert incident.opened_at == T0 + 61 * MIN and incident.is_open


def test_silence_resolves_when_a_live_order_arrives_and_is_told_once_per_flip(busy):
    incident = evaluate(now=T0 + 2 * HOUR).opened[0]
    evaluate(now=T0 + 2 * HOUR + MIN)
    evaluate(now=T0 + 3 * HOUR)
    assert flips(incident) == ["opened"]

    log(busy, at=T0 + 3 * HOUR + 5 * MIN)
    result = evaluate(now=T0 + 3 * HOUR + 6 * MIN)
    evaluate(now=T0 + 3 * HOUR + 7 * MIN)

    assert result.resolved == [incident]
    incident.refresh_from_db()
    assert incident.resolved_at == T0 + 3 * HOUR + 6 * MIN
    assert flips(incident) == ["opened", "resolved"]
    assert Incident.objects.count() == 1


def test_a_small_shop_quiet_at_night_stays_quiet_until_its_usual_morning_orders_are_missing(brand):
    # Two orders an hour from 08:00 to 20:00, none at night; the last came at 19:50.
    history(brand, lambda hour: 2 if 8 <= hour.hour < 20 else 0, until=T0 + 6 * HOUR)
    evening = T0.replace(hour=19, minute=50)
    log(brand, at=evening)

    for hour in (22, 24 + 2, 24 + 6, 24 + 9):  # 22:00, 02:00, 06:00, 09:00 next day
        assert opened(evaluate(now=T0.replace(hour=0) + hour * HOUR)) == [], hour

    # By 10:30 about 5 of its usual morning orders are missing.
    assert opened(evaluate(now=T0.replace(hour=10, minute=30) + 24 * HOUR)) == [("silence", "")]


def test_a_brand_with_no_history_is_not_judged(brand, other_brand):
    log(brand, at=T0)  # its first order ever; other_brand has sent nothing at all

    assert opened(evaluate(now=T0 + 6 * HOUR)) == []
    assert opened(evaluate(now=T0 + 30 * HOUR)) == []


def test_test_orders_are_no_history_and_do_not_end_a_silence(brand):
    history(brand, lambda hour: 10, until=T0, is_test=True)
    log(brand, at=T0, is_test=True)
    assert opened(evaluate(now=T0 + 3 * HOUR)) == []

    history(brand, lambda hour: 10, until=T0)
    log(brand, at=T0)
    incident = evaluate(now=T0 + 3 * HOUR + MIN).opened[0]
    log(brand, at=T0 + 3 * HOUR + 2 * MIN, is_test=True)

    assert evaluate(now=T0 + 3 * HOUR + 3 * MIN).resolved == []
    assert Incident.objects.get(pk=incident.pk).is_open


def test_the_brand_sets_its_own_floor_and_threshold(busy):
    AlertRuleSet.objects.create(brand=busy, silence_floor_minutes=5, silence_usual_orders=1)

    assert opened(evaluate(now=T0 + 6 * MIN)) == [("silence", "")]


def test_turning_a_rule_off_resolves_its_open_incident(busy):
    incident = evaluate(now=T0 + 2 * HOUR).opened[0]
    AlertRuleSet.objects.create(brand=busy, silence_enabled=False)

    assert evaluate(now=T0 + 2 * HOUR + MIN).resolved == [incident]
    assert opened(evaluate(now=T0 + 3 * HOUR)) == []


def test_an_inactive_brand_is_not_watched(busy):
    incident = evaluate(now=T0 + 2 * HOUR).opened[0]
    busy.is_active = False
    busy.save()

    assert evaluate(now=T0 + 2 * HOUR + MIN).resolved == [incident]


@pytest.fixture
def webhook_only(brand):
    """Acme's orders arrive by its Shopify webhook alone, 10 an hour for a week; its last came at T0."""
    history(brand, lambda hour: 10, until=T0, endpoint="shopify", outcome="tracked")
    log(brand, Outcome.TRACKED, at=T0, endpoint="shopify")
    return brand


def test_a_brand_whose_orders_arrive_by_webhook_alone_gets_a_silence_alert(webhook_only):
    assert opened(evaluate(now=T0 + 59 * MIN)) == []

    incident = evaluate(now=T0 + 61 * MIN).opened[0]

    assert (incident.rule, incident.counts["via"], incident.counts["usual_orders"]) == (
        "silence",
        "shopify",
        10.2,
    )
    said = describe(incident)
    assert said.title == "Orders stopped: Shopify webhook"
    assert said.summary.startswith("No live order by Shopify webhook for 61 min when it opened")
    assert "setup page" in said.fix and said.events_query == {"endpoint": "shopify", "ns": "live"}


def test_a_webhook_order_ends_the_silence_and_deliveries_that_brought_none_do_not(webhook_only):
    incident = evaluate(now=T0 + 2 * HOUR).opened[0]
    at = T0 + 2 * HOUR + MIN
    # Anyone can send a bad signature naming the shop; a repeat or orders/paid brings no new order.
    for outcome in (Outcome.INVALID_SIGNATURE, Outcome.REDELIVERY, Outcome.ALREADY_RECEIVED, Outcome.IGNORED):
        log(webhook_only, outcome, at=at, endpoint="shopify")
    assert evaluate(now=at + MIN).resolved == []

    log(webhook_only, Outcome.NO_ATTRIBUTION, at=at + 2 * MIN, endpoint="woocommerce")

    assert evaluate(now=at + 3 * MIN).resolved == [incident]


def test_an_order_seen_by_both_ways_is_usual_once(brand):
    # Each order: a confirmation handed to the webhook, and the webhook's own delivery.
    history(brand, lambda hour: 10, until=T0, outcome="shopify_handoff")
    history(brand, lambda hour: 10, until=T0, endpoint="shopify", outcome="tracked")
    log(brand, Outcome.TRACKED, at=T0, endpoint="shopify")

    incident = evaluate(now=T0 + 61 * MIN).opened[0]

    assert incident.counts["usual_orders"] == 10.2


def handed_off(brand, *, since, minutes):
    """One order confirmation a minute handed off to the shop's webhook (the webhook records the order)."""
    for m in range(minutes):
        log(brand, Outcome.SHOPIFY_HANDOFF, at=since + m * MIN)


def test_a_webhook_that_stops_while_confirmations_are_still_handed_off_to_it_opens_its_own_silence(
    webhook_only,
):
    # The Shopify webhook's last order came at T0; the thank-you page's confirmations keep arriving, each
    # handed off to the webhook, so the brand is not silent, but those orders wait for a webhook that stopped.
    handed_off(webhook_only, since=T0 + MIN, minutes=70)

    result = evaluate(now=T0 + 71 * MIN)

    assert opened(result) == [("silence", "handoff")]
    incident = result.opened[0]
    assert incident.counts == {
        "handoffs": 59,
        "via": "shopify",
        "last_order_at": T0.isoformat(),
        "silent_minutes": 71,
    }
    said = describe(incident)
    assert said.title == "Orders stopped: Shopify webhook"
    assert said.summary == (
        "59 order confirmations of the last hour were handed off to Shopify webhook, but no order has come by "
        "it for 71 min: their commissions wait for it."
    )
    assert "signing secret" in said.fix
    assert said.events_query == {"endpoint": "order_confirmation", "outcome": "shopify_handoff", "ns": "live"}


def test_handed_off_confirmations_with_their_webhook_orders_arriving_open_nothing(webhook_only):
    for m in range(1, 71):
        log(webhook_only, Outcome.SHOPIFY_HANDOFF, at=T0 + m * MIN)
        log(webhook_only, Outcome.TRACKED, at=T0 + m * MIN, endpoint="shopify")

    assert opened(evaluate(now=T0 + 71 * MIN)) == []


def test_a_few_handed_off_confirmations_are_below_the_brands_threshold(webhook_only):
    handed_off(webhook_only, since=T0 + 66 * MIN, minutes=4)  # the threshold is 5 usual orders

    assert opened(evaluate(now=T0 + 70 * MIN)) == []


def test_the_webhooks_next_order_resolves_it(webhook_only):
    handed_off(webhook_only, since=T0 + MIN, minutes=70)
    incident = evaluate(now=T0 + 71 * MIN).opened[0]
    assert evaluate(now=T0 + 72 * MIN).resolved == []

    log(webhook_only, Outcome.TRACKED, at=T0 + 73 * MIN, endpoint="shopify")

    assert evaluate(now=T0 + 74 * MIN).resolved == [incident]
    assert flips(incident) == ["opened", "resolved"]


def test_turning_silence_off_turns_the_webhooks_watch_off_too(webhook_only):
    AlertRuleSet.objects.update_or_create(brand=webhook_only, defaults={"silence_enabled": False})
    handed_off(webhook_only, since=T0 + MIN, minutes=70)

    assert opened(evaluate(now=T0 + 71 * MIN)) == []


# --- problem spike ----------------------------------------------------------------------------------


def only_spikes(brand):
    AlertRuleSet.objects.create(brand=brand, silence_enabled=False, new_problem_enabled=False)


def test_a_spike_needs_both_the_share_and_the_minimum_count(busy):
    only_spikes(busy)
    now = T0 + 30 * MIN
    log(busy, "tracked", at=T0 + MIN, n=6)
    log(busy, "invalid_order_amount", at=T0 + 2 * MIN, n=4)  # 40 % but only 4 events
    assert opened(evaluate(now=now)) == []

    log(busy, "invalid_order_amount", at=T0 + 3 * MIN, n=1)
    result = evaluate(now=now)

    # 5 of 12 order confirmations (the one at T0 included) in the last hour.
    assert opened(result) == [("problem_spike", "")]
    spike = result.opened[0]
    assert spike.counts == {
        "orders": 12,
        "needs_action": 5,
        "percent": 41.7,
        "top": [["invalid_order_amount", 5]],
    }


def test_a_spike_of_test_events_or_of_other_endpoints_is_not_a_spike(busy):
    only_spikes(busy)
    log(busy, "invalid_order_amount", at=T0 + MIN, n=20, is_test=True)
    log(busy, "unauthorized", at=T0 + MIN, n=20, endpoint="cancel")

    assert opened(evaluate(now=T0 + 2 * MIN)) == []


def test_a_spike_resolves_when_the_last_hour_falls_below_half_the_threshold(busy):
    only_spikes(busy)
    log(busy, "invalid_order_amount", at=T0 + MIN, n=6)
    spike = evaluate(now=T0 + 2 * MIN).opened[0]

    log(busy, "tracked", at=T0 + 40 * MIN, n=30)  # 6 of 37: 16 %, above half of 20 %
    assert evaluate(now=T0 + 41 * MIN).resolved == []

    log(busy, "tracked", at=T0 + 65 * MIN, n=30)  # the 6 problems left the last hour
    assert evaluate(now=T0 + 66 * MIN).resolved == [spike]
    assert flips(spike) == ["opened", "resolved"]


# --- new problem ------------------------------------------------------------------------------------


def test_a_new_problem_opens_after_n_occurrences_in_24_hours(busy):
    log(busy, "unregistered_property", at=T0 - 20 * HOUR, n=2)
    assert "new_problem" not in [r for r, _ in opened(evaluate(now=T0 + MIN))]

    log(busy, "unregistered_property", at=T0 + 2 * MIN)
    result = evaluate(now=T0 + 3 * MIN)

    assert ("new_problem", "unregistered_property") in opened(result)
    incident = next(i for i in result.opened if i.rule == "new_problem")
    assert incident.counts == {"outcome": "unregistered_property", "events_24h": 3, "events_last_hour": 1}


def test_a_problem_seen_in_the_week_before_is_not_new(busy):
    history(
        busy,
        lambda hour: 1 if hour.hour == 9 and hour.day == T0.day - 3 else 0,
        until=T0,
        outcome="unregistered_property",
    )
    log(busy, "unregistered_property", at=T0 + MIN, n=5)

    assert "new_problem" not in [r for r, _ in opened(evaluate(now=T0 + 2 * MIN))]


def test_test_events_never_make_a_new_problem(busy):
    log(busy, "unregistered_property", at=T0 + MIN, n=5, is_test=True)

    assert opened(evaluate(now=T0 + 2 * MIN)) == []


def test_a_new_problem_resolves_after_an_hour_of_events_without_it_but_not_in_a_quiet_night(busy):
    AlertRuleSet.objects.create(brand=busy, silence_enabled=False, spike_enabled=False)
    log(busy, "unregistered_property", at=T0 + MIN, n=3)
    incident = evaluate(now=T0 + 2 * MIN).opened[0]

    assert evaluate(now=T0 + 2 * HOUR).resolved == []  # no event at all for an hour: nothing shows a fix

    log(busy, "tracked", at=T0 + 2 * HOUR + MIN)
    assert evaluate(now=T0 + 2 * HOUR + 2 * MIN).resolved == [incident]


def test_a_new_problem_that_comes_back_opens_again(busy):
    AlertRuleSet.objects.create(brand=busy, silence_enabled=False, spike_enabled=False)
    log(busy, "unregistered_property", at=T0 + MIN, n=3)
    first = evaluate(now=T0 + 2 * MIN).opened[0]
    log(busy, "tracked", at=T0 + 70 * MIN)
    evaluate(now=T0 + 71 * MIN)

    log(busy, "unregistered_property", at=T0 + 3 * HOUR)
    again = evaluate(now=T0 + 3 * HOUR + MIN).opened

    assert [(i.rule, i.subject) for i in again] == [("new_problem", "unregistered_property")]
    assert again[0].pk != first.pk


# --- service side -----------------------------------------------------------------------------------


def test_a_service_side_fault_opens_one_incident_for_account_managers(brand, other_brand):
    log(brand, "insert_failed", at=T0 - 10 * MIN)
    log(None, "handler_error", at=T0 - 5 * MIN)

    result = evaluate(now=T0)

    assert [(i.brand_id, i.rule) for i in result.opened] == [(None, "service_side")]
    assert result.opened[0].counts["failures"] == {"handler_error": 1, "insert_failed": 1}
    assert evaluate(now=T0 + 30 * MIN).resolved == []
    assert [i.rule for i in evaluate(now=T0 + 61 * MIN).resolved] == ["service_side"]


def test_an_event_waiting_in_the_spool_for_minutes_is_a_service_side_fault(db):
    spool.keep_event(endpoint="order_confirmation", received_at=T0 - 4 * MIN, request_id="r1", body=b"{}")
    spool.save_backlog(spool.pending(), now=T0)  # what a replay run that could not process it leaves

    assert opened(evaluate(now=T0)) == []
    assert opened(evaluate(now=T0 + 2 * MIN)) == [("service_side", "")]


def test_evaluation_judges_every_active_brand(db):
    brands = [factories.BrandFactory() for _ in range(3)]
    for b in brands:
        history(b, lambda hour: 5, until=T0)
        log(b, at=T0)

    result = evaluate(now=T0 + 2 * HOUR)

    assert result.brands == 3
    assert sorted(i.brand_id for i in result.opened) == sorted(b.pk for b in brands)
