"""POST /api/order_confirmation: service-side faults, the cost of the hot path in statements, and account managers' edits reaching the resolution cache.

Every test checks the answer, what was stored (Order, Commission) and the one outcome record written.
"""

import pytest
from django.db import connection

from attribution.models import Commission, Order
from brands.resolution import resolve_host
from tests.factories import (
    DiscountCodeFactory,
)
from tests.faults import failing_writes_to

from .confirming import (
    answer,
    click_on,
    events,
    order,
)

pytestmark = pytest.mark.django_db


# --- service-side faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", ["attribution_order", "attribution_commission"])
def test_a_failed_save_answers_insert_failed_and_keeps_nothing_half_written(
    confirm, prop, creator, spool_dir, table
):
    click = click_on(prop, creator=creator)

    with failing_writes_to(table):
        response = confirm(order(clickId=click.click_id))

    body = answer(response, 200, "insert_failed")
    assert "Nothing to change" in body["message"]
    assert not Order.objects.exists()
    assert not Commission.objects.exists()
    assert events() == [("insert_failed", 200, prop.brand_id, "A-1001", False)]


def test_an_order_whose_save_failed_can_be_tracked_when_sent_again(confirm, prop, creator, spool_dir):
    click = click_on(prop, creator=creator)
    with failing_writes_to("attribution_commission"):
        answer(confirm(order(clickId=click.click_id)), 200, "insert_failed")

    answer(confirm(order(clickId=click.click_id)), 200, "tracked")
    assert Commission.objects.count() == 1


def test_an_unexpected_error_answers_json_handler_error_never_an_html_500(
    confirm, prop, monkeypatch, spool_dir
):
    def crash(**kwargs):
        raise RuntimeError("bug in the decision code")

    monkeypatch.setattr("attribution.orders.confirmation._judge", crash)

    response = confirm(order())

    body = answer(response, 200, "handler_error")
    assert "Nothing to change" in body["message"]
    assert "RuntimeError" not in response.content.decode()
    assert not Order.objects.exists()
    # The service never judged the event, yet its brand still sees it in the health view.
    assert events() == [("handler_error", 200, prop.brand_id, "A-1001", False)]


def test_a_throttled_event_is_recorded_for_the_brand_of_the_page(confirm, prop, settings):
    settings.API_THROTTLE_RATES = {**settings.API_THROTTLE_RATES, "order_confirmation": "1/min"}
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    answer(confirm(order(orderId="A-2")), 429, "rate_limited")
    assert events()[-1] == ("rate_limited", 429, prop.brand_id, "A-2", False)


# --- cost of the hot path -----------------------------------------------------------------------------------

# Brand resolution is cached after the first event, so no statement reads a brand. On PostgreSQL the
# order, its commission and the outcome row are one statement (attribution.orders.store); elsewhere one INSERT
# each, in one transaction (Django logs its BEGIN and COMMIT as queries; they are left out below).
TRANSACTION = 2
# The throttle's count (one UPSERT in the database; none with REDIS_URL, where it is a cache INCR).
THROTTLE = 1


def statements(captured) -> list[str]:
    """The first word of each statement, without the transaction's own (BEGIN IMMEDIATE on SQLite, COMMIT)."""
    words = [q["sql"].split()[0] for q in captured.captured_queries]
    return [word for word in words if word not in ("BEGIN", "COMMIT")]


def stored_with_its_record(*rows: str) -> list[str]:
    """The statements that store an order's rows and its outcome row, on this database."""
    return ["WITH"] if connection.vendor == "postgresql" else ["INSERT"] * (len(rows) + 1)


@pytest.mark.django_db(transaction=True)
def test_a_tracked_order_costs_one_read_and_one_write(confirm, prop, creator, django_assert_max_num_queries):
    click = click_on(prop, creator=creator)
    # A warm process: it has read the brand's review settings (attribution.review.settings_copy) once.
    answer(
        confirm(order(orderId="WARM-UP", clickId=click_on(prop, creator=creator).click_id)), 200, "tracked"
    )

    with django_assert_max_num_queries(4 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001", clickId=click.click_id)), 200, "tracked")

    # the throttle's count; the click (with its orders of the last hour, for the click_reuse review rule); the
    # order, its commission and the outcome record
    assert statements(captured) == ["INSERT", "SELECT", *stored_with_its_record("order", "commission")]


@pytest.mark.django_db(transaction=True)
def test_a_tracked_order_by_code_costs_one_read_and_one_write(
    confirm, prop, creator, django_assert_max_num_queries
):
    DiscountCodeFactory(brand=prop.brand, creator=creator, code="ANA10")
    answer(confirm(order(orderId="WARM-UP", code="ANA10")), 200, "tracked")  # reads the review settings once

    with django_assert_max_num_queries(4 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001", code="ANA10")), 200, "tracked")

    assert statements(captured) == ["INSERT", "SELECT", *stored_with_its_record("order", "commission")]


@pytest.mark.django_db(transaction=True)
def test_a_direct_order_costs_one_write(confirm, prop, django_assert_max_num_queries):
    answer(confirm(order(orderId="WARM-UP")), 200, "no_attribution")

    with django_assert_max_num_queries(2 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001")), 200, "no_attribution")

    # the throttle's count; the order and the outcome record
    assert statements(captured) == ["INSERT", *stored_with_its_record("order")]


@pytest.mark.django_db(transaction=True)
def test_a_repeated_order_is_answered_duplicate_by_the_write_itself(
    confirm, prop, django_assert_max_num_queries
):
    answer(confirm(order(orderId="A-1001")), 200, "no_attribution")

    with django_assert_max_num_queries(3 + TRANSACTION + THROTTLE) as captured:
        answer(confirm(order(orderId="A-1001")), 400, "duplicate_order")

    if connection.vendor == "postgresql":  # ON CONFLICT decides it: no error, no second look
        # The throttle's count, the write that finds the order id taken, and the repeat's own outcome row
        # (its answer is made only for a repeat, attribution.orders.store).
        assert statements(captured) == ["INSERT", "WITH", "INSERT"]
    assert Order.objects.count() == 1
    assert [e[0] for e in events()] == ["no_attribution", "duplicate_order"]


# --- account managers' edits reach the resolution cache at once ---------------------------------------------


def test_a_property_whose_host_changes_stops_resolving_under_the_old_host(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")  # shop.acme.example now cached

    prop.host = "store.acme.example"
    prop.save()

    answer(confirm(order(orderId="A-2")), 200, "unregistered_property")
    answer(confirm(order(orderId="A-3", page_url="https://store.acme.example/thanks")), 200, "no_attribution")


def test_a_property_moved_to_another_domain_stops_resolving_under_the_old_one(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.host = "shop.acme-store.example"
    prop.save()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")
    assert resolve_host("shop.acme-store.example").property_id == prop.id


def test_a_deleted_property_stops_resolving_at_once(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.delete()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")


def test_a_host_changed_in_the_admin_resolves_anew_at_once(confirm, client, prop, admin_user):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")
    client.force_login(admin_user)

    response = client.post(
        f"/admin/brands/property/{prop.pk}/change/", {"brand": prop.brand_id, "host": "store.acme.example"}
    )

    assert response.status_code == 302, response.content
    answer(confirm(order(orderId="A-2")), 200, "unregistered_property")
    answer(confirm(order(orderId="A-3", page_url="https://store.acme.example/")), 200, "no_attribution")


def test_a_property_deleted_in_the_admin_stops_resolving_at_once(confirm, client, prop, admin_user):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")
    client.force_login(admin_user)

    response = client.post(f"/admin/brands/property/{prop.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")


def test_a_brand_deactivated_by_its_account_manager_stops_resolving_at_once(confirm, prop):
    answer(confirm(order(orderId="A-1")), 200, "no_attribution")

    prop.brand.is_active = False
    prop.brand.save()

    answer(confirm(order(orderId="A-2")), 400, "unresolved_domain")
