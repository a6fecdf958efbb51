"""Connect with Shopify (/health/setup/shopify/connect and /callback): the OAuth grant against the stand-in.
A token whose shop is the claimed one proves ownership: the connection is active at once, the app's webhooks
are subscribed. Anything else is refused with nothing kept."""

import re
from datetime import timedelta
from html import unescape
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from attribution.management.demo.standin.shopify_routes import oauth_hmac
from brands.models import PlatformConnection
from tests.health.pages.setup.consent import back_to_service, consent, onward, visit_platform
from tests.platform_standin import CLIENT_ID, CLIENT_SECRET

SHOP = "acme.myshopify.com"
CONNECT = "/health/setup/shopify/connect"


@pytest.fixture
def shop(standin):
    return standin.add_shop(SHOP, id=9001, name="Acme", currency="EUR", timezone="Europe/Paris")


def start(client, brand, shop=SHOP, prop="shop.acme.example"):
    return client.post(f"{CONNECT}?brand={brand.pk}", {"shop": shop, "property": prop})


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_it_sends_the_administrator_to_the_shops_consent_page(alice_client, brand, prop, shop, settings):
    location = urlsplit(onward(start(alice_client, brand)))
    assert (
        f"{location.scheme}://{location.netloc}{location.path}"
        == f"http://standin.test/{SHOP}/admin/oauth/authorize"
    )
    query = dict(parse_qsl(location.query))
    assert query["client_id"] == CLIENT_ID
    assert query["scope"] == "read_orders"
    assert query["redirect_uri"] == "https://testserver/health/setup/shopify/callback"
    assert len(query["state"]) >= 40


def test_read_all_orders_is_asked_only_when_configured(alice_client, brand, prop, shop, settings):
    settings.SHOPIFY_SCOPES = "read_orders,read_all_orders"

    query = dict(parse_qsl(urlsplit(onward(start(alice_client, brand))).query))

    assert query["scope"] == "read_orders,read_all_orders"


def test_consent_connects_the_shop_at_once_and_subscribes_its_webhooks(
    alice_client, brand, prop, shop, standin
):
    response = consent(alice_client, start(alice_client, brand))

    assert response.status_code == 302
    assert response["Location"] == f"/health/setup/?brand={brand.pk}#platforms"
    connection = PlatformConnection.objects.get(platform="shopify", shop_domain=SHOP)
    assert connection.brand == brand and connection.property == prop
    assert connection.connected_via == PlatformConnection.ConnectedVia.OAUTH
    assert connection.approved_at is not None and not connection.is_pending()
    assert connection.can_sync()
    assert connection.credential_plain() in shop.tokens
    assert (connection.api_scopes, connection.platform_shop_id) == ("read_orders", "gid://shopify/Shop/9001")
    assert (connection.shop_currency, connection.shop_timezone) == ("EUR", "Europe/Paris")
    assert sorted((s["topic"], s["uri"]) for s in shop.subscriptions) == [
        ("APP_UNINSTALLED", "https://testserver/api/platforms/shopify/app/uninstalled"),
        ("ORDERS_CANCELLED", "https://testserver/api/platforms/shopify"),
        ("ORDERS_CREATE", "https://testserver/api/platforms/shopify"),
        ("ORDERS_PAID", "https://testserver/api/platforms/shopify"),
        ("ORDERS_UPDATED", "https://testserver/api/platforms/shopify"),
    ]
    assert any("proved the shop is yours" in text for text in texts(response))


def test_consent_asks_for_an_expiring_offline_pair_and_keeps_it(alice_client, brand, prop, shop, standin):
    before = timezone.now()

    consent(alice_client, start(alice_client, brand))

    connection = PlatformConnection.objects.get(platform="shopify", shop_domain=SHOP)
    assert connection.credential_plain() in shop.token_expiry  # expiring=1 was asked
    assert connection.refresh_token_plain() in shop.refresh_tokens
    assert (
        before + timedelta(minutes=59)
        < connection.credential_expires_at
        <= timezone.now() + timedelta(hours=1)
    )
    assert connection.refresh_token_expires_at > timezone.now() + timedelta(days=89)


def test_connecting_again_subscribes_only_what_is_missing(alice_client, brand, prop, shop, standin):
    consent(alice_client, start(alice_client, brand))
    standin.remove_subscription(SHOP, "ORDERS_PAID")

    consent(alice_client, start(alice_client, brand))

    topics = [s["topic"] for s in shop.subscriptions]
    assert sorted(topics) == [
        "APP_UNINSTALLED",
        "ORDERS_CANCELLED",
        "ORDERS_CREATE",
        "ORDERS_PAID",
        "ORDERS_UPDATED",
    ]
    assert topics[-1] == "ORDERS_PAID"  # the one re-created; the others were left alone
    assert PlatformConnection.objects.count() == 1


def callback_of(alice_client, brand, **changes):
    """The stand-in's redirect back to the service, its query changed by `changes` (None removes)."""
    at_platform = visit_platform(onward(start(alice_client, brand)))
    location = urlsplit(at_platform.headers["Location"])
    query = dict(parse_qsl(location.query))
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value
    return f"https://testserver{location.path}?{urlencode(query)}", query


def assert_refused(response, words: str):
    assert response.status_code == 400
    assert words in response.content.decode()
    assert PlatformConnection.objects.count() == 0


def test_a_bad_hmac_is_refused_and_the_code_never_exchanged(alice_client, brand, prop, shop, standin):
    location, query = callback_of(alice_client, brand, hmac="0" * 64)

    assert_refused(back_to_service(alice_client, location), "not signed by Shopify")
    assert query["code"] in standin.codes  # never exchanged
    assert shop.tokens == {}


def test_a_changed_parameter_breaks_the_hmac(alice_client, brand, prop, shop, standin):
    location, _ = callback_of(alice_client, brand, timestamp="1")

    assert_refused(back_to_service(alice_client, location), "not signed by Shopify")


def test_a_state_from_another_session_is_refused(alice_client, brand, prop, shop, standin, client, alice):
    location, _ = callback_of(alice_client, brand)
    other_session = type(client)()
    other_session.force_login(alice)

    assert_refused(back_to_service(other_session, location), "not started in this session")
    assert shop.tokens == {}


def test_a_state_is_used_once(alice_client, brand, prop, shop, standin):
    location, _ = callback_of(alice_client, brand)
    assert back_to_service(alice_client, location).status_code == 302

    PlatformConnection.objects.all().delete()
    assert_refused(back_to_service(alice_client, location), "not started in this session")


def test_a_stale_state_is_refused(alice_client, brand, prop, shop, standin, monkeypatch):
    from health.pages.setup import connect as pages

    location, _ = callback_of(alice_client, brand)
    later = pages.clock() + pages.STATE_SECONDS + 1
    monkeypatch.setattr(pages, "clock", lambda: later)

    assert_refused(back_to_service(alice_client, location), "too long ago")


def test_a_shop_that_is_not_a_myshopify_host_is_not_called(alice_client, brand, prop, standin):
    response = start(alice_client, brand, shop="acme.example")

    assert response.status_code == 302 and "standin.test" not in response["Location"]
    assert any("myshopify.com" in text for text in texts(response))
    assert standin.calls == []


def test_a_callback_naming_another_host_is_refused(alice_client, brand, prop, shop, standin):
    location, query = callback_of(alice_client, brand)
    query["shop"] = "evil.example"
    query["hmac"] = oauth_hmac(query, CLIENT_SECRET)  # even correctly signed
    path = urlsplit(location).path

    assert_refused(
        back_to_service(alice_client, f"https://testserver{path}?{urlencode(query)}"),
        "not acme.myshopify.com",
    )
    assert shop.tokens == {}


def test_a_token_of_another_shop_is_refused_and_nothing_kept(alice_client, brand, prop, shop, standin):
    standin.add_shop("globex.myshopify.com")
    shop.answers_as = "globex.myshopify.com"

    response = consent(alice_client, start(alice_client, brand))

    assert_refused(response, "opens globex.myshopify.com, not acme.myshopify.com")
    assert shop.subscriptions == []


def test_a_shop_another_brand_holds_is_refused(alice_client, brand, prop, shop, other_prop):
    held = PlatformConnection(
        brand=other_prop.brand, property=other_prop, platform="shopify", shop_domain=SHOP
    )
    held.set_secret("shpss_theirs")
    held.save()

    response = consent(alice_client, start(alice_client, brand))

    assert response.status_code == 400
    assert "connected to another brand" in response.content.decode()
    assert list(PlatformConnection.objects.all()) == [held]


def test_it_needs_a_signed_in_user_of_the_brand(client, alice_client, bob, brand, prop, shop):
    anonymous = type(client)()
    assert start(anonymous, brand)["Location"].startswith("/accounts/login/")
    client.force_login(bob)
    assert start(client, brand).status_code == 404


def test_a_typed_in_connection_of_the_shop_becomes_proved(alice_client, brand, prop, shop):
    typed = PlatformConnection(
        brand=brand, property=prop, platform="shopify", shop_domain=SHOP, approved_at=None
    )
    typed.set_secret("shpss_by_hand")
    typed.save()

    consent(alice_client, start(alice_client, brand))

    typed.refresh_from_db()
    assert typed.connected_via == PlatformConnection.ConnectedVia.OAUTH and typed.approved_at is not None
    assert (
        next(typed.signing_secrets(now=typed.approved_at)) == "shpss_by_hand"
    )  # its hand-made webhooks still verify


def test_the_setup_page_offers_both_connections(alice_client, brand, prop):
    page = alice_client.get("/health/setup/", {"brand": brand.pk}).content.decode()

    assert 'id="shopify-connect"' in page and "Connect with Shopify" in page
    assert 'id="woocommerce-connect"' in page and "Connect with WooCommerce" in page


def test_deliveries_signed_with_the_apps_secret_count_for_an_oauth_connection(
    alice_client, brand, prop, shop, client
):
    from attribution.management.demo.standin.webhook_bodies import signature

    consent(alice_client, start(alice_client, brand))
    body = b'{"id":5001,"name":"#5001","currency":"EUR","subtotal_price":"10.00","test":false}'
    answer = client.post(
        "/api/platforms/shopify",
        body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_WEBHOOK_ID="w-5001",
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(body, CLIENT_SECRET),
    )

    assert answer.status_code == 200, answer.content
    assert answer.json()["success"] is True


def test_the_apps_secret_does_not_sign_for_a_typed_in_connection(brand, prop, client, standin):
    from attribution.management.demo.standin.webhook_bodies import signature

    typed = PlatformConnection(brand=brand, property=prop, platform="shopify", shop_domain=SHOP)
    typed.set_secret("shpss_by_hand")
    typed.save()
    body = b'{"id":5002,"name":"#5002","currency":"EUR","subtotal_price":"10.00"}'
    answer = client.post(
        "/api/platforms/shopify",
        body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN=SHOP,
        HTTP_X_SHOPIFY_HMAC_SHA256=signature(body, CLIENT_SECRET),
    )

    assert answer.status_code == 401


def test_the_setup_form_posts_with_the_csrf_token_and_a_link_starts_nothing(
    alice, brand, prop, shop, standin
):
    """A forged link or a cross-site form cannot start a connection in a signed-in user's session."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    page = browser.get("/health/setup/", {"brand": brand.pk}).content.decode()
    form = re.search(
        r'<form method="post" action="([^"]+)"[^>]*id="shopify-connect">(.*?)</form>', page, re.S
    )

    assert unescape(form[1]) == f"{CONNECT}?brand={brand.pk}"
    assert 'name="csrfmiddlewaretoken"' in form[2]
    assert browser.get(CONNECT, {"brand": brand.pk, "shop": SHOP, "property": prop.host}).status_code == 405
    assert start(browser, brand).status_code == 403  # no token: a cross-site form
    assert "shopify_oauth_states" not in browser.session and standin.calls == []


def test_no_signed_test_curl_for_a_shop_signed_by_the_apps_secret(alice_client, brand, prop, shop):
    consent(alice_client, start(alice_client, brand))
    connection = PlatformConnection.objects.get()

    page = alice_client.get("/health/setup/", {"brand": brand.pk}).content.decode()

    assert f'id="curl-{connection.pk}"' not in page  # the brand never holds the app's secret to sign with
    assert "the app's own" in page
