"""Replay tells a passing failure from a permanent one: the database away keeps an event in the spool; an
event that fails while the database answers becomes a dead letter the admin shows, with its reason, to
retry or drop. No page reads the spool directory: they read what the last replay run counted."""

import json

import pytest
from django.db import DataError, OperationalError
from django.urls import reverse
from django.utils import timezone

from attribution.durability import spool
from attribution.models import DeadLetter, Order, SpoolBacklog, SpoolReplay
from attribution.replay import MAX_ATTEMPTS, replay_all
from health.log.models import OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db

ORDER_PATH = "/api/order_confirmation"
CHANGELIST = reverse("admin:attribution_deadletter_changelist")


def _order(prop, **fields):
    return {
        "orderAmount": "50.00",
        "orderId": "DL-1",
        "currency": "USD",
        "page_url": f"https://{prop.host}/t",
        **fields,
    }


@pytest.fixture
def spooled(api, prop, monkeypatch):
    """One order spooled because its insert failed."""
    with monkeypatch.context() as patch:
        patch.setattr(
            "attribution.orders.store.write_order", _refuse("server closed the connection unexpectedly")
        )
        assert api.post(ORDER_PATH, _order(prop)).json()["outcome"] == "insert_failed"
    [entry] = spool.pending()
    return entry


def _refuse(message, error=OperationalError):
    def refuse(*args, **kwargs):
        raise error(message)

    return refuse


@pytest.fixture
def staff(db):
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)


@pytest.fixture
def alice(brand):
    return factories.MembershipFactory(brand=brand, user__username="alice").user


def test_an_event_that_keeps_failing_while_the_database_answers_becomes_a_dead_letter(spooled, monkeypatch):
    monkeypatch.setattr("attribution.orders.store.write_order", _refuse("value out of range"))

    runs = [replay_all() for _ in range(MAX_ATTEMPTS)]

    assert [r.still_failing for r in runs] == [1] * (MAX_ATTEMPTS - 1) + [0]
    assert runs[-1].dead_lettered == 1
    assert spool.pending() == []
    letter = DeadLetter.objects.get()
    assert (letter.spool_id, letter.endpoint, letter.answered) == (
        spooled.spool_id,
        "order_confirmation",
        "insert_failed",
    )
    assert letter.reason == "_StillFailing: the service answered insert_failed again"
    assert letter.attempts == MAX_ATTEMPTS
    assert json.loads(letter.body)["orderId"] == "DL-1"
    assert not SpoolReplay.objects.exists()


def test_a_value_the_database_refuses_as_such_is_a_dead_letter_at_once(spooled, monkeypatch):
    monkeypatch.setattr("attribution.replay.record_resolution", _refuse("numeric field overflow", DataError))

    summary = replay_all()

    assert (summary.dead_lettered, summary.still_failing) == (1, 0)
    assert DeadLetter.objects.get().reason == "DataError: numeric field overflow"
    assert not Order.objects.exists()  # the event's transaction was rolled back whole


def test_an_event_stays_in_the_spool_while_the_database_is_away(spooled, monkeypatch):
    monkeypatch.setattr("attribution.orders.store.write_order", _refuse("connection refused"))
    monkeypatch.setattr("attribution.replay._database_answers", lambda: False)

    for _ in range(MAX_ATTEMPTS + 1):
        assert replay_all().still_failing == 1

    assert len(spool.pending()) == 1
    assert not DeadLetter.objects.exists()


def test_a_spool_file_from_before_the_amount_fix_now_replays_as_the_rejection_it_is(api, prop):
    spool.keep_event(
        endpoint="order_confirmation",
        received_at=timezone.now(),
        request_id="req-overflow-1",
        body=json.dumps(_order(prop, orderAmount="999999999999.9999995")).encode(),
        answered="insert_failed",
    )

    summary = replay_all()

    assert (summary.replayed, summary.dead_lettered) == (1, 0)
    assert OutcomeEvent.objects.get().outcome == "invalid_order_amount"


def test_the_overview_counts_what_the_last_replay_run_left_without_reading_the_spool(
    client, alice, spooled, monkeypatch
):
    monkeypatch.setattr("attribution.orders.store.write_order", _refuse("connection refused"))
    monkeypatch.setattr("attribution.replay._database_answers", lambda: False)
    replay_all()
    backlog = SpoolBacklog.objects.get()
    assert (backlog.waiting, backlog.by_brand[str(spooled.brand_id)][0]) == (1, 1)

    def no_disk(*args, **kwargs):
        raise AssertionError("a page read the spool directory")

    monkeypatch.setattr("attribution.durability.spool._spooled_files", no_disk)
    client.force_login(alice)
    page = client.get(reverse("health:overview")).content.decode()

    assert "1 event waiting to be processed" in page
    assert spool.backlog(brand_id=spooled.brand_id).oldest_received_at == spooled.received_at


def test_brand_users_and_anonymous_do_not_reach_the_dead_letters(client, alice):
    assert client.get(CHANGELIST).status_code == 302
    client.force_login(alice)
    assert client.get(CHANGELIST).status_code == 302


def test_the_admin_shows_a_dead_letter_with_its_reason_and_no_address(client, staff, api, prop, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr("attribution.orders.store.write_order", _refuse("down"))
        api.post(ORDER_PATH, _order(prop, customer_email="ana@example.com"))
    monkeypatch.setattr("attribution.replay.record_resolution", _refuse("numeric field overflow", DataError))
    replay_all()
    letter = DeadLetter.objects.get()
    client.force_login(staff)

    listed = client.get(CHANGELIST).content.decode()
    page = client.get(reverse("admin:attribution_deadletter_change", args=[letter.pk])).content.decode()

    assert "DataError: numeric field overflow" in listed
    assert "DL-1" in page and "DataError: numeric field overflow" in page
    assert "ana@example.com" not in page and "sha256:" in page


def test_retry_processes_a_dead_letter_once_its_cause_is_gone(client, staff, spooled, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr("attribution.replay.record_resolution", _refuse("numeric field overflow", DataError))
        replay_all()
    letter = DeadLetter.objects.get()
    client.force_login(staff)

    response = client.post(CHANGELIST, {"action": "retry", "_selected_action": [letter.pk]}, follow=True)

    assert "1 event(s) processed" in response.content.decode()
    assert not DeadLetter.objects.exists()
    assert Order.objects.get().order_id == "DL-1"
    assert OutcomeEvent.objects.get().outcome == "no_attribution"
    assert SpoolReplay.objects.get().spool_id == spooled.spool_id


def test_a_retry_that_fails_again_keeps_the_dead_letter_with_the_new_reason(
    client, staff, spooled, monkeypatch
):
    monkeypatch.setattr("attribution.replay.record_resolution", _refuse("numeric field overflow", DataError))
    replay_all()
    letter = DeadLetter.objects.get()
    monkeypatch.setattr("attribution.replay.record_resolution", _refuse("still broken", DataError))
    client.force_login(staff)

    client.post(CHANGELIST, {"action": "retry", "_selected_action": [letter.pk]})

    letter.refresh_from_db()
    assert letter.reason == "DataError: still broken"
    assert letter.attempts == 2


def test_dropping_a_dead_letter_deletes_it_for_good(client, staff, spooled, monkeypatch):
    monkeypatch.setattr("attribution.replay.record_resolution", _refuse("numeric field overflow", DataError))
    replay_all()
    letter = DeadLetter.objects.get()
    client.force_login(staff)

    client.post(reverse("admin:attribution_deadletter_delete", args=[letter.pk]), {"post": "yes"})

    assert not DeadLetter.objects.exists()
    assert spool.pending() == []
