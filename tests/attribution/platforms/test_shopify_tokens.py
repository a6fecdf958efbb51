"""Shopify's expiring offline tokens (attribution.platforms.connect.shopify_tokens) against the stand-in: a pair
is renewed a few minutes before its access token expires and once after a 401, an OAuth token of before is
exchanged once, and a refresh Shopify refuses disconnects the shop with the incident that says how to
reconnect. Two clocks move together: the stand-in's (seconds) and the service's (a datetime)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction

from attribution.platforms.apis.errors import CredentialRevoked
from attribution.platforms.apis.shopify import ShopifyAdmin
from attribution.platforms.connect import shopify_tokens
from attribution.platforms.connect.connections import disconnect
from attribution.platforms.connect.shopify_tokens import ConnectionToken, admin_of, refresh
from brands.models import PlatformConnection
from health.alerts.descriptions import describe
from health.alerts.evaluation import evaluate

pytestmark = pytest.mark.django_db

SHOP = "acme-tokens.myshopify.com"
START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


class Clocks:
    """The stand-in's seconds and the service's time, moved on together; nothing ever waits."""

    def __init__(self):
        self.seconds, self.now = 1000.0, START

    def __call__(self) -> float:
        return self.seconds

    def service(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        step = timedelta(**delta)
        self.seconds += step.total_seconds()
        self.now += step


@pytest.fixture
def clocks(standin):
    clocks = Clocks()
    standin.clock = clocks
    return clocks


@pytest.fixture
def shop(standin, clocks):
    return standin.add_shop(SHOP, currency="USD", timezone="UTC")


def connected(prop, **fields) -> PlatformConnection:
    connection = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain=SHOP,
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        api_scopes="read_orders",
    )
    connection.set_credential(**fields)
    connection.save()
    return connection


@pytest.fixture
def connection(prop, shop, standin, clocks):
    """Acme's shop connected by OAuth an instant ago, with the expiring pair the stand-in issued."""
    pair = standin.issue_expiring_token(SHOP, ["read_orders"])
    return connected(
        prop,
        plain=pair["access_token"],
        expires_at=START + timedelta(seconds=pair["expires_in"]),
        refresh_token=pair["refresh_token"],
        refresh_expires_at=START + timedelta(seconds=pair["refresh_token_expires_in"]),
    )


def token_calls(standin) -> int:
    return sum(1 for method, path in standin.calls if path.endswith("/admin/oauth/access_token"))


def kept(connection) -> PlatformConnection:
    return PlatformConnection.objects.get(pk=connection.pk)


def test_the_pair_is_kept_sealed_with_both_expiries(connection, standin, shop):
    row = PlatformConnection.objects.values("credential", "refresh_token").get(pk=connection.pk)

    assert connection.refresh_token_plain() in shop.refresh_tokens
    assert connection.refresh_token_plain() not in row["refresh_token"]  # sealed at rest
    assert connection.credential_plain() not in row["credential"]
    assert connection.credential_expires_at == START + timedelta(hours=1)
    assert connection.refresh_token_expires_at == START + timedelta(days=90)


def test_a_token_far_from_its_expiry_is_used_as_it_is(connection, standin, clocks, django_assert_num_queries):
    clocks.advance(minutes=50)
    token = ConnectionToken(connection, clock=clocks.service)

    with django_assert_num_queries(0):
        assert token() == connection.credential_plain()
    assert token_calls(standin) == 0


def test_it_is_renewed_a_few_minutes_before_it_expires(
    connection, standin, clocks, shop, django_assert_max_num_queries
):
    first, first_refresh = connection.credential_plain(), connection.refresh_token_plain()
    clocks.advance(minutes=56)

    with django_assert_max_num_queries(4):  # the row locked, the pair written (and the savepoint's two)
        identity = admin_of(connection, clock=clocks.service).identity()

    assert identity["shop"]["myshopifyDomain"] == SHOP
    assert token_calls(standin) == 1
    renewed = kept(connection)
    assert renewed.credential_plain() not in (first, "") and renewed.credential_plain() in shop.tokens
    assert first not in shop.tokens  # one expiring token of the app opens the shop
    assert renewed.refresh_token_plain() != first_refresh
    assert renewed.credential_expires_at == clocks.now + timedelta(hours=1)
    assert connection.credential_plain() == renewed.credential_plain()  # the caller's copy follows


def test_an_expired_access_token_is_refused_with_401_by_the_standin(connection, clocks):
    clocks.advance(minutes=61)

    with pytest.raises(CredentialRevoked, match="401"):
        ShopifyAdmin(SHOP, connection.credential_plain()).identity()


def test_a_401_renews_the_token_once_and_asks_again(connection, standin, clocks, shop):
    shop.tokens.pop(connection.credential_plain())  # refused before its expiry, as after a rotation

    identity = admin_of(connection, clock=clocks.service).identity()

    assert identity["shop"]["myshopifyDomain"] == SHOP
    assert token_calls(standin) == 1
    assert kept(connection).credential_plain() in shop.tokens


def test_a_refused_refresh_disconnects_the_shop_and_opens_the_incident_that_says_how_to_reconnect(
    connection, standin, clocks, prop
):
    standin.revoke(SHOP)  # the refresh token too: as after 90 days without a call

    with pytest.raises(CredentialRevoked, match="refused to renew"):
        admin_of(connection, clock=clocks.service).identity()

    assert token_calls(standin) == 1  # renewed once, never in a loop
    row = kept(connection)
    assert row.disconnected_at is not None and not row.can_sync()
    assert (row.credential, row.refresh_token, row.credential_expires_at) == ("", "", None)
    opened = evaluate(exclusive=False).opened
    assert [(i.rule, i.subject) for i in opened] == [("disconnected", str(connection.pk))]
    said = describe(opened[0])
    assert said.title == f"Shopify access not renewed: {SHOP}"
    assert said.summary.startswith(
        f"Shopify refused to renew the service's access to {SHOP} at 2026-11-28 12:00 UTC"
    )
    assert "(Shopify refused the grant: The refresh token is invalid or expired)" in said.summary
    assert "Connect with Shopify" in said.fix and "approve the app again" in said.fix


def test_a_runner_that_finds_the_pair_renewed_does_not_renew_it_again(connection, standin, clocks):
    clocks.advance(minutes=56)
    refresh(connection.pk, now=clocks.now)  # the other runner, first

    again = refresh(connection.pk, now=clocks.now)  # re-read under the lock: not due any more

    assert token_calls(standin) == 1
    assert again.credential_plain() == kept(connection).credential_plain()


def test_a_401_of_a_token_another_runner_replaced_takes_the_new_one(connection, standin, clocks, shop):
    stale = connection.credential_plain()
    clocks.advance(minutes=56)
    refresh(connection.pk, now=clocks.now)  # the other runner renewed it while this one called with `stale`

    token = ConnectionToken(connection, clock=clocks.service)
    assert token.renew(stale) == kept(connection).credential_plain()
    assert token_calls(standin) == 1


def test_a_lost_refresh_answer_is_recovered_with_the_previous_refresh_token(
    connection, standin, clocks, shop
):
    """Shopify keeps the refresh token used valid until its replacement is used: a refresh whose write was
    rolled back (a crash before the commit) is simply asked again."""
    previous = connection.refresh_token_plain()
    clocks.advance(minutes=56)
    with pytest.raises(RuntimeError), transaction.atomic():
        refresh(connection.pk, now=clocks.now)
        raise RuntimeError("the runner died before its commit")
    assert kept(connection).refresh_token_plain() == previous  # the lost pair was never kept

    renewed = refresh(connection.pk, now=clocks.now)

    assert token_calls(standin) == 2
    assert renewed.credential_plain() in shop.tokens
    assert previous in shop.refresh_tokens  # still usable: its replacement was not used yet
    clocks.advance(minutes=56)
    refresh(connection.pk, now=clocks.now)  # the replacement used: the previous one is retired
    assert previous not in shop.refresh_tokens
    assert standin.refresh(SHOP, previous) is None


def test_an_oauth_token_of_before_is_exchanged_once_for_an_expiring_pair(prop, shop, standin, clocks):
    old = standin.issue_token(SHOP, ["read_orders"])
    connection = connected(prop, plain=old)

    admin = admin_of(connection, clock=clocks.service)
    admin.identity()
    admin.identity()

    assert token_calls(standin) == 1
    row = kept(connection)
    assert row.credential_plain() != old and row.credential_plain() in shop.tokens
    assert row.credential_expires_at == START + timedelta(hours=1) and row.refresh_token
    assert old not in shop.tokens  # the non-expiring token stops opening the shop


def test_a_refused_exchange_keeps_the_token_of_before(prop, shop, standin, clocks):
    old = standin.issue_token(SHOP, ["read_orders"])
    connection = connected(prop, plain=old)
    shop.migrated[old] = {"refresh_token": "gone"}  # as Shopify refusing the exchange

    admin = admin_of(connection, clock=clocks.service)
    admin.identity()
    admin.identity()

    assert token_calls(standin) == 1  # tried once a client
    assert kept(connection).credential_plain() == old and kept(connection).disconnected_at is None


def test_a_pasted_admin_token_is_never_exchanged(prop, shop, standin, clocks):
    pasted = standin.issue_token(SHOP, ["read_orders"])
    connection = connected(prop, plain=pasted)
    PlatformConnection.objects.filter(pk=connection.pk).update(
        connected_via=PlatformConnection.ConnectedVia.ADMIN_TOKEN
    )
    connection.refresh_from_db()

    admin_of(connection, clock=clocks.service).identity()

    assert token_calls(standin) == 0
    assert not shopify_tokens.is_due(connection, now=clocks.now)


def test_the_standin_issues_pairs_of_the_lifetimes_it_is_built_with(standin, shop, clocks):
    standin.access_token_seconds, standin.refresh_token_seconds = 120, 600

    pair = standin.issue_expiring_token(SHOP, ["read_orders"])

    assert (pair["expires_in"], pair["refresh_token_expires_in"], pair["scope"]) == (120, 600, "read_orders")
    clocks.advance(seconds=121)
    assert standin.expired(shop, pair["access_token"])
    clocks.advance(seconds=480)
    assert standin.refresh(SHOP, pair["refresh_token"]) is None  # the refresh token's own expiry


def test_an_uninstall_forgets_the_whole_pair(connection):
    disconnect(connection, reason="The shop uninstalled the app.")

    row = kept(connection)
    assert (row.credential, row.refresh_token) == ("", "")
    assert (row.credential_expires_at, row.refresh_token_expires_at) == (None, None)


def test_a_lost_exchange_answer_is_recovered_with_the_token_of_before(prop, shop, standin, clocks):
    """Shopify answers a retried exchange of the same old token with the same pair (for seven days)."""
    old = standin.issue_token(SHOP, ["read_orders"])
    connection = connected(prop, plain=old)
    with pytest.raises(RuntimeError), transaction.atomic():
        refresh(connection.pk, now=clocks.now)
        raise RuntimeError("the runner died before its commit")
    assert kept(connection).credential_plain() == old

    exchanged = refresh(connection.pk, now=clocks.now)

    assert exchanged.credential_plain() == shop.migrated[old]["access_token"]
    assert exchanged.credential_plain() in shop.tokens and exchanged.refresh_token
