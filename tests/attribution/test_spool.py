"""The durable spool: an event the database cannot take is kept on disk, answered 200, and
replayed exactly once with its original receipt time."""

import json
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from attribution import spool
from attribution.models import Commission, Order, SpoolReplay
from attribution.replay import REPLAYED, replay_all
from health.models import OutcomeEvent
from tests.factories import ClickFactory, CommissionFactory, OrderFactory, issue_key

ORDER_PATH = "/api/order_confirmation"


@pytest.fixture
def spool_in_tmp(_spool_in_tmp):
    return _spool_in_tmp


def _order(prop, **fields):
    return {
        "orderAmount": "50.00",
        "orderId": "SP-1",
        "currency": "USD",
        "page_url": f"https://{prop.host}/thanks",
        **fields,
    }


def _break_order_inserts(monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("attribution.orders._insert_order", refuse)


def test_an_order_the_database_refuses_is_answered_insert_failed_and_spooled(api, prop, monkeypatch):
    _break_order_inserts(monkeypatch)

    response = api.post(ORDER_PATH, _order(prop))

    assert response.status_code == 200
    assert response.json()["outcome"] == "insert_failed"
    assert response.json()["success"] is True
    assert spool.pending_count() == 1
    [entry] = spool.pending()
    assert json.loads(entry.body)["orderId"] == "SP-1"
    assert not Order.objects.exists()
    assert OutcomeEvent.objects.get().outcome == "insert_failed"


def test_replay_processes_a_spooled_order_once_with_its_original_receipt_time(api, prop, monkeypatch):
    click = ClickFactory(property=prop, clicked_at=timezone.now() - timedelta(days=29, hours=23))
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop, clickId=click.click_id))
    [entry] = spool.pending()

    summary = replay_all()

    assert (summary.replayed, summary.still_failing) == (1, 0)
    order = Order.objects.get(order_id="SP-1")
    assert order.outcome == "tracked"  # judged at arrival, inside the 30-day window
    assert order.received_at == entry.received_at
    assert Commission.objects.filter(order=order).count() == 1
    replayed = OutcomeEvent.objects.get(outcome="tracked")
    assert replayed.received_at == entry.received_at
    assert REPLAYED in replayed.warnings
    assert spool.pending_count() == 0


def test_a_second_replay_changes_nothing(api, prop, monkeypatch):
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop))
    [entry] = spool.pending()
    replay_all()
    events_after_first = OutcomeEvent.objects.count()
    # The same file again (as after a crash between commit and delete): the ledger refuses it.
    spool._write(
        {
            "spool_id": entry.spool_id,
            "kind": entry.kind,
            "endpoint": entry.endpoint,
            "received_at": entry.received_at.isoformat(),
            "request_id": entry.request_id,
            "body_b64": __import__("base64").b64encode(entry.body).decode(),
            "key_prefix": "",
            "key_hash": "",
        }
    )

    summary = replay_all()

    assert (summary.replayed, summary.already_done) == (0, 1)
    assert OutcomeEvent.objects.count() == events_after_first
    assert Order.objects.count() == 1
    assert SpoolReplay.objects.count() == 1


def test_a_spooled_repeat_of_a_stored_order_stays_a_duplicate(api, prop, monkeypatch):
    OrderFactory(brand=prop.brand, order_id="SP-1")
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop))

    replay_all()

    assert OutcomeEvent.objects.filter(outcome="duplicate_order").count() == 1
    assert Order.objects.filter(order_id="SP-1").count() == 1


def test_an_event_still_refused_on_replay_stays_in_the_spool(api, prop, monkeypatch):
    _break_order_inserts(monkeypatch)
    api.post(ORDER_PATH, _order(prop))

    summary = replay_all()

    assert summary.still_failing == 1
    assert spool.pending_count() == 1
    assert not SpoolReplay.objects.exists()


def test_a_spooled_cancel_keeps_no_plaintext_key_and_replays_with_it(api, prop, monkeypatch, spool_in_tmp):
    commission = CommissionFactory(order=OrderFactory(brand=prop.brand, order_id="C-1"))
    _, key = issue_key(prop.brand)
    with monkeypatch.context() as patch:

        def refuse(*args, **kwargs):
            raise OperationalError("database is down")

        patch.setattr("attribution.models.Commission.move_to", refuse)
        response = api.post("/api/Affiliates/cancel", {"order_id": "C-1"}, key=key)
    assert response.json()["outcome"] == "handler_error"  # cancel's interface has no insert_failed
    stored = "".join(p.read_text() for p in spool_in_tmp.iterdir())
    assert key not in stored
    assert key.partition(".")[2] not in stored

    replay_all()

    commission.refresh_from_db()
    assert commission.state == "cancelled"
    assert OutcomeEvent.objects.filter(endpoint="cancel", outcome="tracked").count() == 1


def test_a_handler_error_is_spooled_and_answered_200_json(api, prop, monkeypatch):
    def explode(**kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr("attribution.orders.confirm_order", explode)

    response = api.post(ORDER_PATH, _order(prop))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["outcome"] == "handler_error"
    assert spool.pending_count() == 1


def test_an_outcome_row_the_database_refuses_is_spooled_and_recorded_on_replay(api, prop, monkeypatch):
    with monkeypatch.context() as patch:

        def refuse(*args, **kwargs):
            raise OperationalError("log table unavailable")

        patch.setattr("health.recording._insert_event", refuse)
        response = api.post(ORDER_PATH, _order(prop))
    assert response.json()["outcome"] == "no_attribution"
    assert Order.objects.count() == 1
    assert OutcomeEvent.objects.count() == 0

    replay_all()

    assert OutcomeEvent.objects.get().outcome == "no_attribution"
    assert Order.objects.count() == 1
