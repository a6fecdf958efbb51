"""The durable spool: an event the database cannot take is kept on disk, answered 200, and
replayed exactly once with its original receipt time."""

import json
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from attribution.durability import spool
from attribution.models import Commission, Order, SpoolReplay
from attribution.replay import REPLAYED, replay_all
from brands.hosts import hash_email
from health.log.models import OutcomeEvent
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


def _refuse(*args, **kwargs):
    raise OperationalError("server closed the connection unexpectedly")


def _break_order_inserts(monkeypatch):
    monkeypatch.setattr("attribution.orders.store.write_order", _refuse)


def test_an_order_the_database_refuses_is_answered_insert_failed_and_spooled(api, prop, monkeypatch):
    _break_order_inserts(monkeypatch)

    response = api.post(ORDER_PATH, _order(prop))

    assert response.status_code == 200
    assert response.json()["outcome"] == "insert_failed"
    assert response.json()["success"] is True
    [entry] = spool.pending()
    assert json.loads(entry.body)["orderId"] == "SP-1"
    assert entry.answered == "insert_failed"
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
    replayed = OutcomeEvent.objects.get()  # the insert_failed row, now with its real outcome
    assert (replayed.outcome, replayed.answered_outcome) == ("tracked", "insert_failed")
    assert replayed.received_at == entry.received_at
    assert REPLAYED in replayed.warnings
    assert spool.pending() == []


def test_a_replayed_order_s_commission_keeps_its_path_and_shopper(api, prop, monkeypatch):
    click = ClickFactory(property=prop)
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop, clickId=click.click_id, is_returning_customer=True))

    replay_all()

    commission = Commission.objects.get()
    assert (commission.attribution, commission.is_returning_customer) == ("click", True)
    assert commission.created_at == Order.objects.get().received_at


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
            "body": entry.body,
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
    assert len(spool.pending()) == 1
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

    monkeypatch.setattr("attribution.orders.confirmation._judge", explode)

    response = api.post(ORDER_PATH, _order(prop))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["outcome"] == "handler_error"
    assert len(spool.pending()) == 1


def test_an_order_whose_outcome_row_the_database_refuses_is_not_stored_half_and_replays_whole(
    api, prop, monkeypatch
):
    with monkeypatch.context() as patch:

        def refuse(*args, **kwargs):
            raise OperationalError("log table unavailable")

        patch.setattr("attribution.orders.store.write_order", refuse)
        patch.setattr("health.log.writer._insert_event", refuse)
        response = api.post(ORDER_PATH, _order(prop))
    # The order and its outcome row are written together, or neither: the event waits in the spool.
    assert response.json()["outcome"] == "insert_failed"
    assert Order.objects.count() == 0
    assert OutcomeEvent.objects.count() == 0

    replay_all()

    assert OutcomeEvent.objects.get().outcome == "no_attribution"
    assert Order.objects.count() == 1


# --- no address in a spool file -------------------------------------------------------------------------------

ANA = "sha256:" + hash_email("ana@example.com")


@pytest.mark.parametrize(
    "body",
    [
        {"customer_email": "ana@example.com"},
        {"customer_email": "ANA@example.com", "notes": ["ana\u0040example.com"]},
        {"shopper": {"email": "ana@example.com"}},
        {"page_url": "https://shop.acme.example/t?email=ana%40example.com"},
    ],
)
def test_a_spool_file_keeps_no_shoppers_address_and_the_replay_still_knows_the_shopper(
    api, prop, monkeypatch, spool_in_tmp, body
):
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop, **body))

    stored = "".join(p.read_text() for p in spool_in_tmp.iterdir())
    assert "ana@" not in stored.lower() and "ana%40" not in stored.lower() and "ana\\u0040" not in stored
    assert ANA in stored
    replay_all()
    assert ANA in OutcomeEvent.objects.get().request_body


def test_a_spooled_order_replays_with_its_known_shopper(api, prop, creator, monkeypatch):
    from tests.factories import KnownShopperFactory

    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=ANA.removeprefix("sha256:"))
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop, customer_email="Ana@Example.com"))

    replay_all()

    assert Order.objects.get().outcome == "tracked"
    assert Order.objects.get().attribution == "shopper"


# --- one event, one row, counted once ---------------------------------------------------------------------------


def test_a_replayed_event_is_one_row_with_the_answer_it_got_and_its_resolution(api, prop, monkeypatch):
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        response = api.post(ORDER_PATH, _order(prop))

    replay_all()

    [event] = OutcomeEvent.objects.all()
    assert (event.outcome, event.answered_outcome, event.http_status) == (
        "no_attribution",
        "insert_failed",
        200,
    )
    assert event.request_id == response["X-Request-ID"]
    assert event.response_body["outcome"] == "no_attribution"
    assert REPLAYED in event.warnings


@pytest.mark.parametrize("rolled_up_before_replay", [True, False])
def test_a_replayed_event_is_counted_once_under_its_real_outcome(
    api, prop, monkeypatch, rolled_up_before_replay
):
    from health.log.models import DailyOutcomeCount
    from health.log.rollup import roll_up

    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        api.post(ORDER_PATH, _order(prop))
    later = timezone.now() + timedelta(minutes=5)  # past the roll-up's safety lag
    if rolled_up_before_replay:
        roll_up(now=later)

    replay_all()
    roll_up(now=later + timedelta(minutes=5))

    counts = dict(DailyOutcomeCount.objects.filter(brand=prop.brand).values_list("outcome", "count"))
    assert counts.get("no_attribution") == 1
    assert counts.get("insert_failed", 0) == 0


def test_a_spooled_event_without_a_fault_row_is_one_new_row_saying_what_was_answered(api, prop, monkeypatch):
    with monkeypatch.context() as patch:
        _break_order_inserts(patch)
        patch.setattr(
            "health.log.writer._insert_event", lambda **kw: (_ for _ in ()).throw(OperationalError("down"))
        )
        api.post(ORDER_PATH, _order(prop))
    assert not OutcomeEvent.objects.exists()

    replay_all()

    [event] = OutcomeEvent.objects.all()
    assert (event.outcome, event.answered_outcome) == ("no_attribution", "insert_failed")


# --- stored on arrival, answered as a fault -----------------------------------------------------------------------


def test_an_order_the_database_stored_though_its_answer_was_lost_is_recorded_with_its_own_outcome(api, prop):
    received = timezone.now()
    OrderFactory(brand=prop.brand, order_id="SP-1", outcome="no_attribution", received_at=received)
    spool.keep_event(
        endpoint="order_confirmation",
        received_at=received,
        request_id="req-late-commit",
        body=json.dumps(_order(prop)).encode(),
        answered="insert_failed",
    )

    replay_all()

    event = OutcomeEvent.objects.get()
    assert (event.outcome, event.answered_outcome) == ("no_attribution", "insert_failed")
    assert Order.objects.count() == 1


def test_a_repeat_of_an_order_stored_by_another_request_is_still_a_duplicate(api, prop):
    OrderFactory(brand=prop.brand, order_id="SP-1", received_at=timezone.now() - timedelta(minutes=1))
    spool.keep_event(
        endpoint="order_confirmation",
        received_at=timezone.now(),
        request_id="req-repeat",
        body=json.dumps(_order(prop)).encode(),
        answered="insert_failed",
    )

    replay_all()

    assert OutcomeEvent.objects.get().outcome == "duplicate_order"


def test_an_update_the_database_applied_though_its_answer_was_lost_is_not_applied_twice(api, prop):
    from decimal import Decimal

    from attribution.models import AmountChange

    commission = CommissionFactory(
        order=OrderFactory(brand=prop.brand, order_id="U-1", amount=Decimal("100"))
    )
    _, key = issue_key(prop.brand)
    body = {"order_id": "U-1", "new_order_amount": "40", "currency": "USD"}
    applied = api.post("/api/Affiliates/update", body, key=key, HTTP_X_REQUEST_ID="req-update-late-1")
    assert applied.json()["outcome"] == "tracked"
    change = AmountChange.objects.get()
    spool.keep_event(
        endpoint="update",
        received_at=change.changed_at,
        request_id="req-update-late-1",
        body=json.dumps(body).encode(),
        authorization=f"Bearer {key}",
        answered="insert_failed",
    )

    summary = replay_all()

    assert summary.replayed == 1
    assert AmountChange.objects.filter(commission=commission).count() == 1
    assert OutcomeEvent.objects.filter(outcome="tracked", endpoint="update").count() == 1
