"""The capture rate rule (docs/alerts.md, "Capture rate"): a reconciliation whose book's completed orders
arrived here well below the brand's normal opens an incident; a later one back near normal resolves it.
The normal is the median of the brand's earlier runs, or the rule's starting normal without three of them."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps as django_apps

from attribution.models import Reconciliation
from health.alerts.descriptions import describe
from health.alerts.evaluation import evaluate
from health.alerts.models import AlertRuleSet, Incident, Notification
from tests.health.alerting import T0

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def run(brand, *, received, book_orders=100, at=T0):
    return Reconciliation.objects.create(
        brand=brand,
        created_at=at,
        format="generic",
        order_id_column="order_id",
        amount_column="amount",
        book_orders=book_orders,
        received=received,
    )


def opened(result):
    return [(i.brand_id, i.rule) for i in result.opened]


def test_a_run_below_the_starting_normal_opens_an_incident_that_says_so(brand):
    low = run(brand, received=80)  # 80 % against 95 % without history: 15 points below

    result = evaluate(now=T0 + timedelta(minutes=1))

    assert opened(result) == [(brand.pk, "capture_drop")]
    incident = result.opened[0]
    assert incident.counts == {
        "run": low.pk,
        "book_orders": 100,
        "received": 80,
        "rate_percent": 80.0,
        "normal_percent": 95.0,
        "from_history": False,
    }
    said = describe(incident)
    assert said.title == "Fewer orders arriving than your order book holds"
    assert said.summary == (
        f"Reconciliation {low.pk} found 80 of its book's 100 completed orders received here (80 %), below your "
        "normal of 95 % (your rules' starting normal)."
    )
    assert "apply the reconciliation" in said.fix
    assert list(Notification.objects.filter(incident=incident).values_list("kind", flat=True)) == ["opened"]


def test_a_run_within_the_drop_is_quiet(brand):
    run(brand, received=86)  # 9 points below 95

    assert opened(evaluate(now=T0 + timedelta(minutes=1))) == []


def test_the_normal_is_the_median_of_the_earlier_runs(brand):
    for days, received in ((10, 70), (8, 72), (6, 74), (4, 90)):  # a brand that always captured ~73 %
        run(brand, received=received, at=T0 - days * DAY)

    assert opened(evaluate(now=T0 - 4 * DAY + timedelta(minutes=1))) == []  # 90 % is above its normal

    low = run(brand, received=62)  # median of 70, 72, 74, 90 = 73 %: 11 points below
    result = evaluate(now=T0 + timedelta(minutes=1))

    assert opened(result) == [(brand.pk, "capture_drop")]
    assert result.opened[0].counts["run"] == low.pk
    assert (result.opened[0].counts["normal_percent"], result.opened[0].counts["from_history"]) == (
        73.0,
        True,
    )


def test_a_later_run_back_near_normal_resolves_it_and_one_still_low_does_not(brand):
    run(brand, received=80)
    incident = evaluate(now=T0 + timedelta(minutes=1)).opened[0]

    run(brand, received=88, at=T0 + DAY)  # 7 points below 95: still more than half the drop
    assert evaluate(now=T0 + DAY + timedelta(minutes=1)).resolved == []

    run(brand, received=93, at=T0 + 2 * DAY)  # 2 points below
    result = evaluate(now=T0 + 2 * DAY + timedelta(minutes=1))

    assert result.resolved == [incident]
    assert Incident.objects.get().resolved_at is not None


def test_the_same_low_run_opens_one_incident(brand):
    run(brand, received=50)

    evaluate(now=T0 + timedelta(minutes=1))
    evaluate(now=T0 + timedelta(minutes=2))

    assert Incident.objects.count() == 1


def test_small_books_and_old_runs_are_not_judged(brand, other_brand):
    run(brand, received=5, book_orders=10)  # fewer than 20 completed orders
    run(other_brand, received=10, at=T0 - 8 * DAY)  # uploaded more than a week ago

    assert opened(evaluate(now=T0 + timedelta(minutes=1))) == []


def test_the_brand_sets_its_drop_and_starting_normal_or_turns_it_off(brand):
    run(brand, received=84)
    rules = AlertRuleSet.objects.create(brand=brand, capture_drop_points=20, capture_normal_percent=99)
    assert opened(evaluate(now=T0 + timedelta(minutes=1))) == []  # 84 % is 15 below 99

    rules.capture_drop_points = 10
    rules.save()
    incident = evaluate(now=T0 + timedelta(minutes=2)).opened[0]

    rules.capture_enabled = False
    rules.save()
    assert evaluate(now=T0 + timedelta(minutes=3)).resolved == [incident]


def test_each_brand_is_judged_on_its_own_runs(brand, other_brand):
    for days in (6, 5, 4):
        run(other_brand, received=60, at=T0 - days * DAY)  # Globex's normal is 60 %
    run(other_brand, received=58)
    run(brand, received=60)  # Acme has no history: 60 % is far below 95 %

    assert opened(evaluate(now=T0 + timedelta(minutes=1))) == [(brand.pk, "capture_drop")]


def test_the_migration_gives_existing_brands_the_rule(brand, other_brand):
    AlertRuleSet.objects.create(brand=brand, capture_enabled=False, capture_drop_points=50)
    migration = import_module("health.migrations.0012_reconciliations")

    migration.give_existing_brands_the_capture_rule(django_apps, None)

    rules = AlertRuleSet.objects.get(brand=brand)
    assert (rules.capture_enabled, rules.capture_drop_points, rules.capture_normal_percent) == (True, 10, 95)
    assert not AlertRuleSet.objects.filter(brand=other_brand).exists()  # it has the defaults: the rule on
    assert AlertRuleSet().capture_enabled is True


def test_the_incident_page_links_the_reconciliation(client, alice, brand):
    low = run(brand, received=80)
    incident = evaluate(now=T0 + timedelta(minutes=1)).opened[0]
    client.force_login(alice)

    html = client.get(f"/health/alerts/incidents/{incident.pk}/").content.decode()

    assert (
        f'href="/health/reconcile/{low.pk}/?brand={brand.pk}">Reconciliation {low.pk} and its missing orders'
        in html
    )
    assert "Capture rate below normal" in html
