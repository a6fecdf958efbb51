"""Connect with WooCommerce (/health/setup/woocommerce/connect, the keys' callback, the return page): the key
handover against the stand-in. Keys that read the site's orders, from a site whose /wp-json/ home is the claimed
one, make an active connection and (with read_write) the service's own webhooks; anything else keeps nothing."""

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.contrib.messages import get_messages

from attribution.platforms.connect.woocommerce_keys import handover_token
from brands.models import PlatformConnection
from tests.health.pages.setup.consent import back_to_service, visit_platform

SLUG = "acme"
CONNECT = "/health/setup/woocommerce/connect"
CALLBACK = "/api/platforms/woocommerce/keys"


@pytest.fixture
def site(standin):
    return standin.add_site(SLUG, name="Acme", timezone="Europe/Berlin")


def start(client, brand, site_url, scope="read_write"):
    return client.get(
        CONNECT, {"brand": brand.pk, "site": site_url, "property": "shop.acme.example", "scope": scope}
    )


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_it_sends_the_administrator_to_the_sites_authorize_page(alice_client, brand, prop, site, standin):
    response = start(alice_client, brand, standin.site_url(SLUG))

    location = urlsplit(response["Location"])
    assert (
        f"{location.scheme}://{location.netloc}{location.path}"
        == "http://standin.test/woo/acme/wc-auth/v1/authorize"
    )
    query = dict(parse_qsl(location.query))
    assert query["scope"] == "read_write"
    assert query["app_name"] == "Creator attribution"
    assert query["callback_url"] == "https://testserver/api/platforms/woocommerce/keys"
    assert query["return_url"] == f"https://testserver/health/setup/woocommerce/return?brand={brand.pk}"
    assert query["user_id"]


def test_the_handover_connects_the_site_and_makes_its_webhooks(alice_client, brand, prop, site, standin):
    at_site = visit_platform(start(alice_client, brand, standin.site_url(SLUG))["Location"])
    assert at_site.status_code == 302, at_site.text  # the callback answered 200

    response = back_to_service(alice_client, at_site.headers["Location"])

    assert response["Location"] == f"/health/setup/?brand={brand.pk}#platforms"
    assert any("its order webhooks were made" in text for text in texts(response))
    connection = PlatformConnection.objects.get(platform="woocommerce")
    assert (connection.brand, connection.property, connection.shop_domain) == (brand, prop, "standin.test")
    assert connection.connected_via == PlatformConnection.ConnectedVia.KEY_HANDOVER
    assert connection.site_url == "http://standin.test/woo/acme"
    assert connection.can_sync() and connection.api_scopes == "read_write"
    keys = json.loads(connection.credential_plain())
    assert site.keys[keys["consumer_key"]]["secret"] == keys["consumer_secret"]
    secret = next(connection.signing_secrets(now=connection.approved_at))
    assert sorted((w["topic"], w["delivery_url"], w["status"]) for w in site.webhooks) == [
        (topic, "https://testserver/api/platforms/woocommerce", "active")
        for topic in ("order.created", "order.deleted", "order.updated")
    ]
    assert set(site.webhook_secrets.values()) == {secret}


def test_read_keys_connect_without_webhooks(alice_client, brand, prop, site, standin):
    at_site = visit_platform(start(alice_client, brand, standin.site_url(SLUG), scope="read")["Location"])
    response = back_to_service(alice_client, at_site.headers["Location"])

    connection = PlatformConnection.objects.get(platform="woocommerce")
    assert connection.api_scopes == "read" and connection.secret == "" and site.webhooks == []
    assert any("make its order webhooks by hand" in text for text in texts(response))


def test_a_site_whose_home_is_another_is_refused_and_its_keys_dropped(
    alice_client, brand, prop, site, standin
):
    site.home = "https://elsewhere.example"

    at_site = visit_platform(start(alice_client, brand, standin.site_url(SLUG))["Location"])

    assert at_site.status_code == 401 and "unable to send the consumer data" in at_site.text
    assert PlatformConnection.objects.count() == 0
    assert site.keys == {} and site.webhooks == []


def post_keys(client, body):
    return client.post(CALLBACK, json.dumps(body), content_type="application/json")


def keys_for(standin, user_id, permissions="read_write"):
    key, secret, key_id = standin.issue_keys(SLUG, permissions)
    return {
        "key_id": key_id,
        "user_id": user_id,
        "consumer_key": key,
        "consumer_secret": secret,
        "key_permissions": permissions,
    }


def test_the_callback_refuses_a_user_id_it_did_not_sign(client, prop, site, standin):
    answer = post_keys(client, keys_for(standin, "42"))

    assert answer.status_code == 400
    assert answer.json() == {"success": False, "error": "This key handover was not started by this service."}
    assert PlatformConnection.objects.count() == 0


def test_the_callback_refuses_keys_that_do_not_read_the_site(client, prop, site, standin):
    token = handover_token(prop=prop, site_url=standin.site_url(SLUG), scope="read_write", nonce="n")
    body = keys_for(standin, token)
    body["consumer_secret"] = "cs_wrong"

    answer = post_keys(client, body)

    assert answer.status_code == 400 and "could not read the site's orders" in answer.json()["error"]
    assert PlatformConnection.objects.count() == 0


def test_the_callback_refuses_a_body_that_is_not_the_keys(client, db):
    assert post_keys(client, {"consumer_key": "ck"}).status_code == 400
    assert client.post(CALLBACK, b"not json", content_type="application/json").json()["success"] is False
    assert client.get(CALLBACK).status_code == 405


def test_a_plain_http_site_is_refused_before_anything_is_called(alice_client, brand, prop, standin):
    response = start(alice_client, brand, "http://shop.acme.example")

    assert "standin.test" not in response["Location"]
    assert any("https" in text for text in texts(response))
    assert standin.calls == []


def test_the_return_page_says_when_no_keys_came(alice_client, brand, prop, site, standin):
    location = dict(parse_qsl(urlsplit(start(alice_client, brand, standin.site_url(SLUG))["Location"]).query))
    response = alice_client.get(
        "/health/setup/woocommerce/return",
        {"brand": brand.pk, "success": "0", "user_id": location["user_id"]},
    )

    assert response.status_code == 302
    assert any("did not hand the keys" in text for text in texts(response))


def test_another_brands_user_cannot_start_a_handover_for_this_brand(client, bob, brand, prop, site, standin):
    client.force_login(bob)

    assert start(client, brand, standin.site_url(SLUG)).status_code == 404
