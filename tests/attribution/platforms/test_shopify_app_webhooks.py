"""The Shopify app's own webhooks, signed with the app's client secret: app/uninstalled disconnects a connection
the app made, and the three compliance topics act on what is held (a shopper's known-shopper entries and the
hash of their address in the outcome log; the shop's connection data), each kept as a privacy request."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, signature
from brands.hosts import hash_email
from brands.models import KnownShopper, PlatformConnection, PlatformPrivacyRequest
from brands.privacy import REDACTED
from health.log.models import OutcomeEvent

APP_SECRET = "app-client-secret-for-tests"
SHOP = "acme.myshopify.com"
SHOPPER = "returning.shopper@example.com"


@pytest.fixture(autouse=True)
def app_secret(settings):
    settings.SHOPIFY_CLIENT_SECRET = APP_SECRET


@pytest.fixture
def connection(prop):
    made = PlatformConnection(
        brand=prop.brand,
        property=prop,
        platform="shopify",
        shop_domain=SHOP,
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
        platform_shop_id="gid://shopify/Shop/9001",
        shop_currency="EUR",
    )
    made.set_credential("shpat_live_token")
    made.save()
    return made


def deliver(client, kind, document, *, topic, secret=APP_SECRET, webhook_id="wh-1", shop=SHOP):
    body = body_of(document)
    return client.post(
        f"/api/platforms/shopify/app/{kind}",
        body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC=topic,
        HTTP_X_SHOPIFY_SHOP_DOMAIN=shop,
        HTTP_X_SHOPIFY_WEBHOOK_ID=webhook_id,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(body, secret),
    )


def uninstall(client, updated_at="2026-11-01T10:00:00Z", **options):
    return deliver(
        client,
        "uninstalled",
        {"id": 9001, "myshopify_domain": SHOP, "name": "Acme", "updated_at": updated_at},
        topic="app/uninstalled",
        **options,
    )


def test_app_uninstalled_disconnects_the_connection_and_forgets_its_token(client, connection):
    answer = uninstall(client)

    assert answer.status_code == 200 and answer.json()["message"] == f"{SHOP} is now disconnected."
    connection.refresh_from_db()
    assert connection.disconnected_at is not None and "uninstalled the app" in connection.disconnect_reason
    assert connection.has_credential() is False and connection.can_sync() is False
    again = uninstall(client, updated_at="2026-11-02T10:00:00Z", webhook_id="wh-2")
    assert again.json()["message"] == f"{SHOP} was already disconnected."


def test_app_uninstalled_leaves_a_connection_the_app_did_not_make(client, connection):
    PlatformConnection.objects.filter(pk=connection.pk).update(
        connected_via=PlatformConnection.ConnectedVia.TYPED
    )

    assert uninstall(client).status_code == 200
    connection.refresh_from_db()
    assert connection.disconnected_at is None and connection.credential_plain() == "shpat_live_token"


def test_a_delivery_not_signed_by_the_app_is_refused(client, connection):
    assert uninstall(client, secret="someone-else").status_code == 401
    connection.refresh_from_db()
    assert connection.disconnected_at is None


def test_a_topic_delivered_to_another_topics_address_is_refused(client, connection):
    answer = deliver(client, "uninstalled", {"shop_id": 9001, "shop_domain": SHOP}, topic="shop/redact")

    assert answer.status_code == 400
    connection.refresh_from_db()
    assert connection.disconnected_at is None


def test_a_body_naming_another_shop_is_refused(client, connection):
    answer = deliver(
        client, "shop-redact", {"shop_id": 1, "shop_domain": "globex.myshopify.com"}, topic="shop/redact"
    )

    assert answer.status_code == 400
    assert PlatformPrivacyRequest.objects.count() == 0


@pytest.fixture
def held_shopper(connection, prop, creator):
    KnownShopper.objects.create(brand=prop.brand, email_hash=hash_email(SHOPPER), creator=creator)
    other = KnownShopper.objects.create(
        brand=prop.brand, email_hash=hash_email("someone@example.com"), creator=creator
    )
    hashed = f"sha256:{hash_email(SHOPPER)}"
    OutcomeEvent.objects.create(
        brand=prop.brand,
        endpoint="shopify",
        outcome="tracked",
        http_status=200,
        request_body=f'{{"email":"{hashed}"}}',
    )
    OutcomeEvent.objects.create(
        brand=prop.brand, endpoint="shopify", outcome="tracked", http_status=200, request_body="{}"
    )
    return other


def customer_request(kind, topic, **more):
    return (
        kind,
        {"shop_id": 9001, "shop_domain": SHOP, "customer": {"id": 77, "email": SHOPPER}, **more},
        topic,
    )


def test_customers_redact_removes_the_shoppers_entries_and_hashes(client, held_shopper, prop):
    kind, document, topic = customer_request(
        "customers-redact", "customers/redact", orders_to_redact=[450789469]
    )

    answer = deliver(client, kind, document, topic=topic)

    assert answer.status_code == 200
    assert list(KnownShopper.objects.all()) == [held_shopper]  # the other shopper's entry stays
    bodies = set(OutcomeEvent.objects.values_list("request_body", flat=True))
    assert bodies == {"{}", f'{{"email":"{REDACTED}"}}'}
    kept = PlatformPrivacyRequest.objects.get()
    assert (kept.topic, kept.brand, kept.customer_id, kept.orders) == (
        "customers/redact",
        prop.brand,
        "77",
        ["450789469"],
    )
    assert kept.email_hash == hash_email(SHOPPER) and SHOPPER not in str(kept.held)
    assert "Removed 1 known-shopper entry" in kept.done


def test_a_retried_request_is_acted_on_once(client, held_shopper):
    kind, document, topic = customer_request("customers-redact", "customers/redact")
    deliver(client, kind, document, topic=topic)

    again = deliver(client, kind, document, topic=topic)

    assert again.status_code == 200 and "already received" in again.json()["message"]
    assert PlatformPrivacyRequest.objects.count() == 1


def test_customers_data_request_says_what_is_held_and_changes_nothing(client, held_shopper, creator):
    kind, document, topic = customer_request(
        "customers-data-request", "customers/data_request", data_request={"id": 9999}
    )

    answer = deliver(client, kind, document, topic=topic)

    assert answer.status_code == 200
    assert answer.json()["held"] == {"known_shoppers": [creator.name], "log_events": 1}
    assert KnownShopper.objects.count() == 2
    kept = PlatformPrivacyRequest.objects.get()
    assert kept.topic == "customers/data_request"
    assert "1 known-shopper entry and in 1 outcome log event" in kept.done


def test_shop_redact_erases_the_shops_connection_data(client, connection):
    answer = deliver(client, "shop-redact", {"shop_id": 9001, "shop_domain": SHOP}, topic="shop/redact")

    assert answer.status_code == 200
    connection.refresh_from_db()
    assert (
        connection.credential,
        connection.secret,
        connection.platform_shop_id,
        connection.shop_currency,
    ) == (
        "",
        "",
        "",
        "",
    )
    assert connection.is_enabled is False and connection.disconnected_at is not None
    assert PlatformPrivacyRequest.objects.get().held == {"connection": connection.pk, "credential": True}


def test_a_request_about_an_unknown_shop_is_answered_and_kept(client, db):
    answer = deliver(
        client,
        "shop-redact",
        {"shop_id": 1, "shop_domain": "unknown.myshopify.com"},
        topic="shop/redact",
        shop="unknown.myshopify.com",
    )

    assert answer.status_code == 200
    kept = PlatformPrivacyRequest.objects.get()
    assert kept.brand is None and "nothing to act on" in kept.done


# A captured request replayed under a new X-Shopify-Webhook-Id does nothing new (docs/threat-model.md, "Round six",
# finding 7): the signed body is remembered by its digest, so a shop connected again since keeps its credential
# and a shopper registered again keeps their entry. Only shop/redact after a new uninstall acts again.
SHOP_REDACT = {"shop_id": 9001, "shop_domain": SHOP}


def connect_again(connection):
    """The brand connects the shop again (Connect with Shopify): a new token, the connection active."""
    connection.refresh_from_db()
    connection.set_credential("shpat_new_token")
    connection.disconnected_at, connection.disconnect_reason, connection.is_enabled = None, "", True
    connection.save()


def test_a_replayed_shop_redact_leaves_a_shop_connected_again_since(client, connection):
    deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-1")
    connect_again(connection)

    replayed = deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-forged")

    assert replayed.status_code == 200
    assert replayed.json()["message"].startswith("This request repeats one received on ")
    connection.refresh_from_db()
    assert connection.credential_plain() == "shpat_new_token" and connection.can_sync()
    assert PlatformPrivacyRequest.objects.count() == 1


def test_a_replayed_uninstall_leaves_a_shop_connected_again_since(client, connection):
    uninstall(client, webhook_id="wh-1")
    connect_again(connection)

    replayed = uninstall(client, webhook_id="wh-forged")

    assert "repeats one received" in replayed.json()["message"]
    connection.refresh_from_db()
    assert connection.disconnected_at is None and connection.credential_plain() == "shpat_new_token"


def test_a_replayed_customers_redact_removes_nothing_registered_since(client, held_shopper, creator, prop):
    kind, document, topic = customer_request("customers-redact", "customers/redact")
    deliver(client, kind, document, topic=topic, webhook_id="wh-1")
    KnownShopper.objects.create(brand=prop.brand, email_hash=hash_email(SHOPPER), creator=creator)

    replayed = deliver(client, kind, document, topic=topic, webhook_id="wh-forged")

    assert "repeats one received" in replayed.json()["message"]
    assert KnownShopper.objects.filter(email_hash=hash_email(SHOPPER)).count() == 1
    assert PlatformPrivacyRequest.objects.count() == 1


def test_shop_redact_after_a_new_uninstall_acts_again(client, connection):
    deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-1")
    connect_again(connection)
    PlatformConnection.objects.filter(pk=connection.pk).update(platform_shop_id="gid://shopify/Shop/9001")
    uninstall(client, webhook_id="wh-2")  # the shop uninstalls the app again

    again = deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-3")

    assert "erased" in again.json()["message"]
    connection.refresh_from_db()
    assert connection.platform_shop_id == "" and connection.credential == ""
    assert PlatformPrivacyRequest.objects.filter(topic="shop/redact").count() == 2


def test_every_answer_carries_its_outcome_as_every_api_answer_does(client, connection):
    """Issue 54 item 2: the app's webhooks answer through the receiver's stages, in the /api/ envelope."""
    answers = [
        deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-1"),
        deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", webhook_id="wh-1"),
        deliver(client, "shop-redact", SHOP_REDACT, topic="shop/redact", secret="forged"),
        deliver(client, "shop-redact", SHOP_REDACT, topic="customers/redact"),
        client.get("/api/platforms/shopify/app/shop-redact"),
    ]

    assert [(a.status_code, a.json()["outcome"], a.json()["success"]) for a in answers] == [
        (200, "app_request", True),
        (200, "redelivery", True),
        (401, "invalid_signature", False),
        (400, "invalid_params", False),
        (405, "method_not_allowed", False),
    ]
    assert answers[2]["WWW-Authenticate"] == "HMAC-SHA256"
