"""The references the database does not check per write are checked daily instead (health.references):
a row naming a brand, click, code, creator or property that does not exist is found and reported."""

import logging
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from attribution.models import AmountChange, Commission, CommissionStateChange, Order
from health import tasks
from health.log.models import OutcomeEvent
from health.references import dangling, unchecked_references
from tests import factories

pytestmark = pytest.mark.django_db

GONE = 987_654_321  # no row has this id


def test_it_checks_exactly_the_references_left_to_the_code():
    assert [f"{f.model._meta.label}.{f.name}" for f in unchecked_references()] == [
        "attribution.AmountChange.brand",
        "attribution.Commission.brand",
        "attribution.Commission.creator",
        "attribution.CommissionHold.brand",
        "attribution.CommissionStateChange.brand",
        "attribution.Order.brand",
        "attribution.Order.click",
        "attribution.Order.creator",
        "attribution.Order.discount_code",
        "attribution.Order.property",
        "attribution.PlatformDelivery.brand",
        "attribution.PlatformDelivery.connection",
        "health.OutcomeEvent.brand",
    ]


def test_it_finds_nothing_when_every_reference_exists(brand, prop, creator, make_event):
    click = factories.ClickFactory(property=prop, brand=brand, creator=creator)
    commission = factories.CommissionFactory(order__brand=brand, order__click=click, creator=creator)
    factories.OrderFactory(brand=brand, property=prop)
    make_event(brand)

    assert dangling() == []
    assert Order.objects.count() == 2 and commission.order.click_id == click.pk


def test_it_finds_rows_naming_a_brand_or_creator_that_does_not_exist(brand, creator, make_event):
    commission = factories.CommissionFactory(order__brand=brand, creator=creator)
    kept = factories.OrderFactory(brand=brand)
    event = make_event(brand)
    Order.objects.filter(pk=commission.order_id).update(brand_id=GONE, creator_id=GONE)
    Commission.objects.filter(pk=commission.pk).update(creator_id=GONE)
    OutcomeEvent.objects.filter(pk=event.pk).update(brand_id=GONE)

    found = {d.label: (d.count, d.examples) for d in dangling()}

    assert found == {
        "attribution.Order.brand": (1, [commission.order_id]),
        "attribution.Order.creator": (1, [commission.order_id]),
        "attribution.Commission.creator": (1, [commission.pk]),
        "health.OutcomeEvent.brand": (1, [event.pk]),
    }
    assert Order.objects.get(pk=kept.pk).brand_id == brand.pk  # nothing is changed by the check


def test_it_finds_history_rows_of_no_brand(brand, creator):
    commission = factories.CommissionFactory(order__brand=brand, creator=creator)
    now = timezone.now()
    AmountChange.objects.create(
        brand_id=GONE,
        commission=commission,
        old_order_amount=100,
        new_order_amount=90,
        old_amount=10,
        new_amount=9,
        changed_at=now,
    )
    CommissionStateChange.objects.create(
        brand_id=GONE,
        commission=commission,
        from_state="pending",
        to_state="cancelled",
        changed_at=now,
        cause="cancel",
    )

    assert {d.label: d.count for d in dangling()} == {
        "attribution.AmountChange.brand": 1,
        "attribution.CommissionStateChange.brand": 1,
    }


def test_by_default_it_reads_recent_rows_and_all_of_them_on_request(brand):
    old = factories.OrderFactory(brand=brand, received_at=timezone.now() - timedelta(days=30))
    Order.objects.filter(pk=old.pk).update(click_id=GONE)

    assert dangling(since=timezone.now() - timedelta(days=2)) == []
    [found] = dangling()
    assert (found.label, found.count, found.examples) == ("attribution.Order.click", 1, [old.pk])


def test_the_command_fails_on_a_dangling_reference_and_says_which(brand, capsys):
    order = factories.OrderFactory(brand=brand)
    call_command("check_references")
    assert "Every reference names an existing row." in capsys.readouterr().out

    Order.objects.filter(pk=order.pk).update(discount_code_id=GONE)

    with pytest.raises(CommandError, match=r"1 attribution.Order.discount_code name no existing row"):
        call_command("check_references", "--all")


def test_the_daily_task_logs_what_it_found(brand, caplog):
    order = factories.OrderFactory(brand=brand)
    assert tasks.check_references() == "Every reference names an existing row."
    Order.objects.filter(pk=order.pk).update(property_id=GONE)

    with caplog.at_level(logging.ERROR, logger="health.tasks"):
        message = tasks.check_references()

    assert message.startswith("1 attribution.Order.property name no existing row")
    assert "attribution.Order.property" in caplog.text
