"""Two runners renewing one shop's expiring pair at once (PostgreSQL): the connection's row lock lets one ask
Shopify, the other re-reads the pair it kept, and the pair kept opens the shop."""

import threading
from datetime import timedelta

import pytest
from django.db import connection as db
from django.db import transaction

from attribution.platforms.apis.errors import PlatformUnavailable
from attribution.platforms.apis.shopify import ShopifyAdmin
from attribution.platforms.connect.shopify_tokens import refresh
from brands.models import PlatformConnection
from tests.attribution.concurrently import run_together
from tests.attribution.platforms.test_shopify_tokens import SHOP, Clocks, connected, token_calls

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


@pytest.fixture
def clocks(standin):
    clocks = Clocks()
    standin.clock = clocks
    return clocks


def due_connection(prop, standin, clocks) -> PlatformConnection:
    """Acme's shop with an expiring pair, five minutes from its expiry on both clocks."""
    pair = standin.issue_expiring_token(SHOP, ["read_orders"])
    connection = connected(
        prop,
        plain=pair["access_token"],
        expires_at=clocks.now + timedelta(hours=1),
        refresh_token=pair["refresh_token"],
        refresh_expires_at=clocks.now + timedelta(days=90),
    )
    clocks.advance(minutes=56)
    return connection


def test_two_runners_refreshing_at_once_keep_one_working_pair(prop, standin, clocks):
    shop = standin.add_shop(SHOP)
    connection = due_connection(prop, standin, clocks)

    first, second = run_together(
        lambda: refresh(connection.pk, now=clocks.now).credential_plain(),
        lambda: refresh(connection.pk, now=clocks.now).credential_plain(),
    )

    assert token_calls(standin) == 1  # the second runner found it renewed
    kept = PlatformConnection.objects.get(pk=connection.pk)
    assert first == second == kept.credential_plain()
    assert kept.refresh_token_plain() in shop.refresh_tokens
    assert ShopifyAdmin(SHOP, kept.credential_plain()).identity()["shop"]["myshopifyDomain"] == SHOP


def test_a_runner_that_waits_past_the_statement_timeout_puts_the_refresh_off(prop, standin, clocks):
    standin.add_shop(SHOP)
    connection = due_connection(prop, standin, clocks)
    held, done = threading.Event(), threading.Event()

    def holder():  # another runner, renewing: it holds the row's lock
        with transaction.atomic():
            PlatformConnection.objects.select_for_update().get(pk=connection.pk)
            held.set()
            assert done.wait(timeout=30)

    def waiter():
        assert held.wait(timeout=30)
        with db.cursor() as cursor:
            cursor.execute("SET statement_timeout = 200")  # the deployment's is 5 s; the test waits less
        try:
            refresh(connection.pk, now=clocks.now)
        except PlatformUnavailable as exc:
            return str(exc)
        finally:
            done.set()

    _, said = run_together(holder, waiter)

    assert said == "another runner is renewing the shop's token; try again"
    assert token_calls(standin) == 0
