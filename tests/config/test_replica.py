"""Read replicas (config/db/router.py; docs/scaling.md, "Read replicas"), against Django's test mirror: the
"replica" alias is the test database itself (config/test_settings.py), so each test sees which alias a
request's queries went to. With REPLICA_READS on (DATABASE_REPLICA_URL set): the health pages' reads and
exports go to the replica; writes, the API, the admin and a browser that just changed something go to the
primary. Without it nothing changes."""

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from config.db import router
from tests import factories
from tests.attribution.keyed import caller_of

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "replica"])


@pytest.fixture
def replica_on(settings):
    settings.REPLICA_READS = True
    settings.REPLICA_PIN_SECONDS = 5


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        now = 1_800_000_000.0

    monkeypatch.setattr(router, "clock", lambda: Clock.now)
    return Clock


def queries_by_alias(send):
    """(queries on the primary, queries on the replica) while `send()` runs."""
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        response = send()
    return response, len(primary.captured_queries), len(replica.captured_queries)


@pytest.fixture
def alice_signed_in(client, brand, prop):
    user = factories.MembershipFactory(brand=brand, user__username="alice").user
    client.force_login(user)
    return client


def test_a_health_page_reads_the_replica(replica_on, alice_signed_in, clock):
    response, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/events/"))

    assert response.status_code == 200
    assert on_replica > 0 and on_primary == 0


def test_an_export_reads_the_replica(replica_on, alice_signed_in, clock):
    response, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/export.csv"))

    assert response.status_code == 200
    assert on_replica > 0 and on_primary == 0


def test_the_api_reads_and_writes_the_primary(replica_on, api, prop, clock):
    key = caller_of(prop.brand, "dev").plaintext
    body = {"orderId": "R-1", "orderAmount": 10, "currency": "USD", "page_url": f"https://{prop.host}/ty"}

    _, on_primary, on_replica = queries_by_alias(lambda: api.post("/api/order_confirmation", body))
    _, read_primary, read_replica = queries_by_alias(lambda: api.get("/api/Affiliates/orders/R-1", key=key))

    assert on_primary > 0 and on_replica == 0
    assert read_primary > 0 and read_replica == 0


def test_right_after_a_change_of_their_own_a_brand_user_reads_the_primary_for_a_few_seconds(
    replica_on, alice_signed_in, clock
):
    changed = alice_signed_in.post("/health/account/", {"time_zone": "Europe/Paris"})
    assert changed.status_code in (200, 302)

    _, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/events/"))
    assert on_primary > 0 and on_replica == 0

    clock.now += 5.1
    _, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/events/"))
    assert on_replica > 0 and on_primary == 0


def test_the_admin_reads_the_primary(replica_on, client, clock):
    client.force_login(factories.UserFactory(username="am", is_staff=True, is_superuser=True))

    _, on_primary, on_replica = queries_by_alias(lambda: client.get("/admin/brands/brand/"))

    assert on_primary > 0 and on_replica == 0


def test_without_a_replica_every_read_goes_to_the_primary(alice_signed_in, settings):
    settings.REPLICA_READS = False

    _, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/events/"))

    assert on_primary > 0 and on_replica == 0


def test_the_router_never_migrates_or_writes_the_replica():
    route = router.ReplicaRouter()

    assert route.allow_migrate("replica", "health") is False and route.allow_migrate("default", "health")
    assert route.db_for_write(None) == "default"


@pytest.fixture
def lagging_replica(monkeypatch):
    """A streaming standby whose replay has not reached the newest order: reading it finds neither the order
    nor its events (they were written in one transaction), while the primary has both."""
    from health.pages.order import queries as order_queries

    real = order_queries.order_page

    def as_the_replica_has_it(brand, order_id, *, is_test):
        return None if router.reads_replica() else real(brand, order_id, is_test=is_test)

    monkeypatch.setattr(order_queries, "order_page", as_the_replica_has_it)


def test_a_brand_new_order_missing_on_the_replica_is_read_from_the_primary(
    replica_on, lagging_replica, alice_signed_in, api, prop, clock
):
    body = {"orderId": "NEW-1", "orderAmount": 10, "currency": "USD", "page_url": f"https://{prop.host}/ty"}
    assert api.post("/api/order_confirmation", body).status_code == 200
    clock.now += 5.1  # the test client's POST pinned it to the primary; that has ended

    response, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/orders/NEW-1"))

    assert response.status_code == 200 and "NEW-1" in response.content.decode()
    assert response.context["page"].order.order_id == "NEW-1"
    assert on_replica > 0 and on_primary > 0  # the replica asked first, then the primary


def test_an_order_the_replica_has_is_read_from_the_replica_alone(
    replica_on, alice_signed_in, api, prop, clock
):
    body = {"orderId": "OLD-1", "orderAmount": 10, "currency": "USD", "page_url": f"https://{prop.host}/ty"}
    assert api.post("/api/order_confirmation", body).status_code == 200
    clock.now += 5.1  # the test client's POST pinned it to the primary; that has ended

    response, on_primary, on_replica = queries_by_alias(lambda: alice_signed_in.get("/health/orders/OLD-1"))

    assert response.status_code == 200
    assert on_replica > 0 and on_primary == 0


def test_an_order_on_neither_is_still_a_404(replica_on, lagging_replica, alice_signed_in, prop, clock):
    response = alice_signed_in.get("/health/orders/NOWHERE-1")

    assert response.status_code == 404
