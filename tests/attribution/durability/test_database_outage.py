"""Nothing is lost when the database goes away: the app runs against PostgreSQL through a TCP
proxy the test controls; the proxy is cut while orders, cancels and updates arrive, restored, the
spool is replayed, and every event and commission is found exactly once."""

import time
from decimal import Decimal

import pytest
from django.db import close_old_connections, connection

from attribution.durability import spool
from attribution.models import Commission, Order
from attribution.replay import replay_all
from health.log.models import OutcomeEvent
from tests.factories import CommissionFactory, OrderFactory, issue_key
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def app_through_proxy(postgres_only):
    real = connection.settings_dict
    proxy = TcpProxy(real["HOST"] or "127.0.0.1", int(real["PORT"] or 5432)).start()
    original_port = real["PORT"]
    connection.close()
    real["PORT"] = str(proxy.port)
    yield proxy
    proxy.stop()
    connection.close()
    real["PORT"] = original_port


@pytest.fixture
def send(api):
    """POST as a production worker would: Django checks its connection before each request
    (close_old_connections on request_started), which the test client switches off."""

    def post(path, body, **kwargs):
        close_old_connections()
        return api.post(path, body, **kwargs)

    return post


def _order(prop, order_id):
    return {
        "orderAmount": "80.00",
        "orderId": order_id,
        "currency": "USD",
        "page_url": f"https://{prop.host}/t",
    }


def test_events_sent_while_the_database_is_unreachable_are_replayed_exactly_once(
    send, prop, creator, app_through_proxy
):
    proxy = app_through_proxy
    code = "OUTAGE10"
    from tests.factories import DiscountCodeFactory

    DiscountCodeFactory(brand=prop.brand, code=code, creator=creator)
    _, key = issue_key(prop.brand)
    to_cancel = CommissionFactory(order=OrderFactory(brand=prop.brand, order_id="OLD-1"), creator=creator)
    to_update = CommissionFactory(
        order=OrderFactory(brand=prop.brand, order_id="OLD-2", amount=Decimal("100")), creator=creator
    )

    before = [send("/api/order_confirmation", {**_order(prop, f"B-{n}"), "code": code}) for n in range(3)]
    assert [r.json()["outcome"] for r in before] == ["tracked"] * 3

    proxy.cut()
    during = [send("/api/order_confirmation", {**_order(prop, f"D-{n}"), "code": code}) for n in range(3)]
    during.append(send("/api/order_confirmation", {**_order(prop, "B-0"), "code": code}))  # a repeat
    during.append(send("/api/Affiliates/cancel", {"order_id": "OLD-1"}, key=key))
    during.append(
        send(
            "/api/Affiliates/update",
            {"order_id": "OLD-2", "new_order_amount": "40", "currency": "USD"},
            key=key,
        )
    )
    proxy.restore()

    assert all(r.status_code == 200 for r in during), [r.content for r in during]
    assert {r.json()["outcome"] for r in during} <= {"insert_failed", "handler_error"}
    assert len(spool.pending()) == len(during)

    after = send("/api/order_confirmation", {**_order(prop, "A-0"), "code": code})
    assert after.json()["outcome"] == "tracked"

    summary = replay_all()
    assert (summary.replayed, summary.still_failing) == (len(during), 0)
    again = replay_all()
    assert again.replayed == 0

    live_ids = ["B-0", "B-1", "B-2", "D-0", "D-1", "D-2", "A-0"]
    for order_id in live_ids:
        assert Order.objects.filter(order_id=order_id).count() == 1, order_id
        assert Commission.objects.filter(order__order_id=order_id).count() == 1, order_id
    to_cancel.refresh_from_db()
    to_update.refresh_from_db()
    assert to_cancel.state == "cancelled"
    assert to_update.amount == Decimal("4.00")
    assert to_update.amount_changes.count() == 1

    real_outcomes = OutcomeEvent.objects.exclude(outcome__in=["insert_failed", "handler_error"])
    assert sorted(
        real_outcomes.filter(endpoint="order_confirmation").values_list("order_id", flat=True)
    ) == sorted([*live_ids, "B-0"])
    assert real_outcomes.get(order_id="B-0", outcome="duplicate_order")
    assert real_outcomes.get(endpoint="cancel").outcome == "tracked"
    assert real_outcomes.get(endpoint="update").outcome == "tracked"
    assert spool.pending() == []
    assert spool.pending_count() == 0


# --- a database that stops answering ---------------------------------------------------------------------------

WAIT_TIMEOUT_S = 1
CONNECT_TIMEOUT_S = 2  # psycopg's smallest
# One timed-out statement, then at most two attempts to connect (the order, then its log row), and slack
# for a loaded machine: far below the ~30 s at which gunicorn would kill a worker stuck in a query.
ANSWER_BOUND_S = WAIT_TIMEOUT_S + 2 * CONNECT_TIMEOUT_S + 3


@pytest.fixture
def short_waits(app_through_proxy):
    options = connection.settings_dict["OPTIONS"]
    saved = dict(options)
    options.update(wait_timeout=WAIT_TIMEOUT_S, connect_timeout=CONNECT_TIMEOUT_S)
    connection.close()
    yield app_through_proxy
    connection.close()
    options.clear()
    options.update(saved)


def _timed(send, *args, **kwargs):
    started = time.monotonic()
    response = send(*args, **kwargs)
    return response, time.monotonic() - started


def _every_order_has_exactly_its_real_outcome_row():
    faults = ("insert_failed", "handler_error")
    for order in Order.objects.all():
        rows = OutcomeEvent.objects.filter(endpoint="order_confirmation", order_id=order.order_id)
        assert rows.exclude(outcome__in=faults).count() == 1, order.order_id
        assert not rows.filter(outcome__in=faults).exists(), order.order_id


def test_a_database_that_answers_nothing_is_answered_insert_failed_within_a_bound_and_spooled(
    send, prop, creator, short_waits
):
    proxy = short_waits
    from tests.factories import DiscountCodeFactory

    DiscountCodeFactory(brand=prop.brand, code="HUSH10", creator=creator)
    assert send("/api/order_confirmation", _order(prop, "B-1")).json()["outcome"] == "no_attribution"

    proxy.black_hole()
    answers = [
        _timed(
            send, "/api/order_confirmation", {**_order(prop, "H-1"), "code": "HUSH10"}
        ),  # reused connection
        _timed(send, "/api/order_confirmation", _order(prop, "H-2")),  # a new connection that never opens
    ]
    proxy.restore()

    for response, elapsed in answers:
        assert response.status_code == 200
        assert response.json()["outcome"] == "insert_failed"
        assert elapsed < ANSWER_BOUND_S, elapsed
    assert len(spool.pending()) == 2
    close_old_connections()

    summary = replay_all()

    assert (summary.replayed, summary.still_failing, summary.dead_lettered) == (2, 0, 0)
    assert sorted(Order.objects.values_list("order_id", flat=True)) == ["B-1", "H-1", "H-2"]
    assert Commission.objects.get().order.order_id == "H-1"
    _every_order_has_exactly_its_real_outcome_row()
    assert set(
        OutcomeEvent.objects.filter(order_id__startswith="H-").values_list("answered_outcome", flat=True)
    ) == {"insert_failed"}


def test_an_order_stored_whose_answer_never_came_back_is_recorded_once_with_its_own_outcome(
    send, prop, short_waits, settings
):
    proxy = short_waits
    # Counted in the cache (as with REDIS_URL), the limit leaves the order's INSERT the first statement to
    # lose its answer; counted in the database, the count's UPSERT would, and the INSERT never be sent.
    settings.THROTTLE_STORE = "cache"
    assert send("/api/order_confirmation", _order(prop, "B-1")).json()["outcome"] == "no_attribution"

    proxy.black_hole(answers_only=True)  # the INSERT reaches the database and commits; its answer is held
    response, elapsed = _timed(send, "/api/order_confirmation", _order(prop, "L-1"))
    proxy.restore()

    assert response.json()["outcome"] == "insert_failed"
    assert elapsed < ANSWER_BOUND_S, elapsed
    close_old_connections()  # as the next request would: the timed-out connection was closed
    assert Order.objects.filter(order_id="L-1").exists()  # stored on arrival after all
    [entry] = spool.pending()

    replay_all()

    assert Order.objects.filter(order_id="L-1").count() == 1
    event = OutcomeEvent.objects.get(order_id="L-1")
    assert (event.outcome, event.answered_outcome, event.received_at) == (
        "no_attribution",
        "insert_failed",
        entry.received_at,
    )
    _every_order_has_exactly_its_real_outcome_row()
