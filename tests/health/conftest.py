"""People and events for the health page tests: alice (Acme's user), bob (Globex's user), a staff
account manager, and events written through health.log.writer like the API writes them."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from attribution.outcomes import OUTCOMES, Outcome
from health.log.models import OutcomeEvent
from health.log.writer import EventRecord, record
from tests import factories


@pytest.fixture
def now():
    return timezone.now()


@pytest.fixture
def old(now):
    """A recorded_at safely past the roll-up's safety lag: an event a roll-up run now counts."""
    return now - timedelta(hours=1)


@pytest.fixture
def alice(brand):
    return factories.MembershipFactory(brand=brand, user__username="alice").user


@pytest.fixture
def bob(other_brand):
    return factories.MembershipFactory(brand=other_brand, user__username="bob").user


@pytest.fixture
def staff(db):
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def make_event(now):
    """Write one outcome event the way the API does; `ago` is how long before now it was received. By
    default a little before now and still today (UTC), so that a test run just after midnight finds
    "today's" events in today's bar."""
    since_midnight = now - now.replace(hour=0, minute=0, second=0, microsecond=0)
    recently = min(timedelta(hours=1), since_midnight / 2)

    def make(
        brand,
        outcome=Outcome.TRACKED,
        *,
        endpoint="order_confirmation",
        ago=None,
        received_at=None,
        recorded_at=None,
        is_test=False,
        order_id="ORD-1",
        http_status=None,
        request_body=None,
        response_body=None,
        warnings=None,
    ):
        event_id = record(
            EventRecord(
                endpoint=endpoint,
                outcome=str(outcome),
                http_status=http_status or OUTCOMES[Outcome(outcome)].status,
                received_at=received_at or now - (recently if ago is None else ago),
                recorded_at=recorded_at,
                brand_id=brand.pk if brand else None,
                order_id=order_id,
                is_test=is_test,
                request_body=request_body if request_body is not None else json.dumps({"orderId": order_id}),
                response_body=response_body,
                warnings=warnings or [],
            )
        )
        return OutcomeEvent.objects.get(pk=event_id)

    return make


# Fixtures of the alert tests: a busy brand with a week of history, a webhook receiver thread.
from tests.health.alerting import busy  # noqa: E402, F401
from tests.health.receiver import closed_port_url, receiver  # noqa: E402, F401
