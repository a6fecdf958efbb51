"""Connect with WooCommerce (/health/setup/woocommerce/connect, the keys' callback, the return page): the key
handover against the stand-in. Keys that read the site's orders, from a site whose /wp-json/ home is the claimed
one, wait on their handover; the session that started it confirms them on the return page, which makes an active
connection and (with read_write) the service's own webhooks. Anything else keeps nothing."""

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from attribution.platforms.connect import woocommerce_keys
from brands.models import KeyHandover, PlatformConnection
from tests.health.pages.setup.consent import back_to_service, onward, visit_platform

SLUG = "acme"
CONNECT = "/health/setup/woocommerce/connect"
CALLBACK = "/api/platforms/woocommerce/keys"
RETURN = "/health/setup/woocommerce/return"


@pytest.fixture
def site(standin):
    return standin.add_site(SLUG, name="Acme", timezone="Europe/Berlin")


def start(client, brand, site_url, scope="read_write"):
    return client.post(
        f"{CONNECT}?brand={brand.pk}", {"site": site_url, "property": "shop.acme.example", "scope": scope}
    )


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def handed_over(client, brand, standin, scope="read_write"):
    """The site's keys handed over and checked: the return page's answer, and the handover's id."""
    at_site = visit_platform(onward(start(client, brand, standin.site_url(SLUG), scope=scope)))
    assert at_site.status_code == 302, at_site.text  # the callback answered 200
    user_id = dict(parse_qsl(urlsplit(at_site.headers["Location"]).query))["user_id"]
    return back_to_service(client, at_site.headers["Location"]), user_id


def confirm(client, brand, user_id):
    return client.post(f"{RETURN}?brand={brand.pk}", {"user_id": user_id})


def test_it_sends_the_administrator_to_the_sites_authorize_page(alice_client, brand, prop, site, standin):
    location = urlsplit(onward(start(alice_client, brand, standin.site_url(SLUG))))

    assert (
        f"{location.scheme}://{location.netloc}{location.path}"
        == "http://standin.test/woo/acme/wc-auth/v1/authorize"
    )
    query = dict(parse_qsl(location.query))
    assert query["scope"] == "read_write"
    assert query["app_name"] == "Creator attribution"
    assert query["callback_url"] == "https://testserver/api/platforms/woocommerce/keys"
    assert query["return_url"] == f"https://testserver/health/setup/woocommerce/return?brand={brand.pk}"
    handover = KeyHandover.objects.get()
    assert (handover.brand, handover.property, handover.scope) == (brand, prop, "read_write")
    assert query["user_id"] == handover.handover_id  # opaque: it shows the site no brand or property id
    assert len(query["user_id"]) >= 32 and ":" not in query["user_id"] and "." not in query["user_id"]


def test_the_handover_waits_for_the_confirmation_then_connects_the_site_and_makes_its_webhooks(
    alice_client, brand, prop, site, standin
):
    page, user_id = handed_over(alice_client, brand, standin)

    assert page.status_code == 200 and 'id="confirm-handover"' in page.content.decode()
    assert PlatformConnection.objects.count() == 0  # nothing is connected until the brand's user confirms
    response = confirm(alice_client, brand, user_id)

    assert response["Location"] == f"/health/setup/?brand={brand.pk}#platforms"
    assert any("its order webhooks were made" in text for text in texts(response))
    connection = PlatformConnection.objects.get(platform="woocommerce")
    assert (connection.brand, connection.property) == (brand, prop)
    assert connection.shop_domain == "standin.test/woo/acme"  # the site lives under a path: keyed by it
    assert connection.connected_via == PlatformConnection.ConnectedVia.KEY_HANDOVER
    assert connection.site_url == "http://standin.test/woo/acme"
    assert connection.can_sync() and connection.api_scopes == "read_write"
    assert connection.shop_timezone == "Europe/Berlin"
    keys = json.loads(connection.credential_plain())
    assert site.keys[keys["consumer_key"]]["secret"] == keys["consumer_secret"]
    secret = next(connection.signing_secrets(now=connection.approved_at))
    assert sorted((w["topic"], w["delivery_url"], w["status"]) for w in site.webhooks) == [
        (topic, "https://testserver/api/platforms/woocommerce", "active")
        for topic in ("order.created", "order.deleted", "order.updated")
    ]
    assert set(site.webhook_secrets.values()) == {secret}
    handover = KeyHandover.objects.get()
    assert handover.confirmed_at is not None and (handover.credential, handover.secret) == ("", "")


def test_read_keys_connect_without_webhooks(alice_client, brand, prop, site, standin):
    _, user_id = handed_over(alice_client, brand, standin, scope="read")
    response = confirm(alice_client, brand, user_id)

    connection = PlatformConnection.objects.get(platform="woocommerce")
    assert connection.api_scopes == "read" and connection.secret == "" and site.webhooks == []
    assert any("make its order webhooks by hand" in text for text in texts(response))


def test_only_the_session_that_started_the_handover_confirms_it(
    alice, alice_client, brand, prop, site, standin
):
    _, user_id = handed_over(alice_client, brand, standin)
    other_session = Client()
    other_session.force_login(alice)

    shown = other_session.get(RETURN, {"brand": brand.pk, "success": "1", "user_id": user_id})
    posted = confirm(other_session, brand, user_id)

    assert shown.status_code == 400 and posted.status_code == 400
    assert "not started in this session" in posted.content.decode()
    assert PlatformConnection.objects.count() == 0


def test_a_handover_is_confirmed_once(alice_client, brand, prop, site, standin):
    _, user_id = handed_over(alice_client, brand, standin)
    assert confirm(alice_client, brand, user_id).status_code == 302
    PlatformConnection.objects.all().delete()

    assert confirm(alice_client, brand, user_id).status_code == 400
    assert PlatformConnection.objects.count() == 0


def test_the_connect_form_posts_with_the_csrf_token_and_a_link_starts_nothing(
    alice, brand, prop, site, standin
):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    page = browser.get("/health/setup/", {"brand": brand.pk}).content.decode()
    form = page[
        page.index('id="woocommerce-connect"') : page.index("</form>", page.index('id="woocommerce-connect"'))
    ]

    assert 'name="csrfmiddlewaretoken"' in form
    link = {"brand": brand.pk, "site": standin.site_url(SLUG), "property": prop.host, "scope": "read_write"}
    assert browser.get(CONNECT, link).status_code == 405  # a forged link
    assert start(browser, brand, standin.site_url(SLUG)).status_code == 403  # a cross-site form
    assert KeyHandover.objects.count() == 0 and standin.calls == []


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


def handover(prop, standin, scope="read_write"):
    return woocommerce_keys.start_handover(prop=prop, site_url=standin.site_url(SLUG), scope=scope)


def test_the_callback_refuses_a_user_id_of_no_handover_and_calls_nothing(client, prop, site, standin):
    answer = post_keys(client, keys_for(standin, "42"))

    assert answer.status_code == 400
    assert answer.json()["error"].startswith("This key handover was not started by this service, was used")
    assert PlatformConnection.objects.count() == 0 and standin.calls == []


def test_the_callback_takes_a_handover_once(client, prop, site, standin):
    user_id = handover(prop, standin).handover_id
    assert post_keys(client, keys_for(standin, user_id)).status_code == 200
    calls = len(standin.calls)

    replayed = post_keys(client, keys_for(standin, user_id))

    assert replayed.status_code == 400 and "was used already" in replayed.json()["error"]
    assert len(standin.calls) == calls  # the site is not called again
    assert PlatformConnection.objects.count() == 0


def test_the_callback_refuses_a_handover_over_an_hour_old(client, prop, site, standin):
    made = handover(prop, standin)
    KeyHandover.objects.filter(pk=made.pk).update(
        created_at=made.created_at - woocommerce_keys.timedelta(seconds=woocommerce_keys.HANDOVER_SECONDS)
    )

    assert post_keys(client, keys_for(standin, made.handover_id)).status_code == 400
    assert standin.calls == []


def test_the_keys_rights_are_the_ones_asked_not_the_ones_the_body_claims(client, prop, site, standin):
    body = keys_for(standin, handover(prop, standin, scope="read").handover_id, permissions="read_write")

    answer = post_keys(client, body)

    assert answer.status_code == 400 and answer.json()["error"] == (
        "The keys were asked with read rights, not read_write."
    )
    assert site.webhooks == [] and KeyHandover.objects.get().credential == ""


def test_the_callback_refuses_keys_that_do_not_read_the_site(client, prop, site, standin):
    body = keys_for(standin, handover(prop, standin).handover_id)
    body["consumer_secret"] = "cs_wrong"

    answer = post_keys(client, body)

    assert answer.status_code == 400 and "could not read the site's orders" in answer.json()["error"]
    assert KeyHandover.objects.get().credential == ""


def test_the_callback_refuses_a_body_that_is_not_the_keys(client, db):
    assert post_keys(client, {"consumer_key": "ck"}).status_code == 400
    assert client.post(CALLBACK, b"not json", content_type="application/json").json()["success"] is False
    assert client.get(CALLBACK).status_code == 405


def test_a_site_whose_home_is_another_is_refused_and_its_keys_dropped(
    alice_client, brand, prop, site, standin
):
    site.home = "https://elsewhere.example"

    at_site = visit_platform(onward(start(alice_client, brand, standin.site_url(SLUG))))

    assert at_site.status_code == 401 and "unable to send the consumer data" in at_site.text
    assert PlatformConnection.objects.count() == 0
    assert site.keys == {} and site.webhooks == []


def test_a_plain_http_site_is_refused_before_anything_is_called(alice_client, brand, prop, standin):
    response = start(alice_client, brand, "http://shop.acme.example")

    assert response.status_code == 302
    assert any("https" in text for text in texts(response))
    assert standin.calls == [] and KeyHandover.objects.count() == 0


def test_the_return_page_says_when_no_keys_came(alice_client, brand, prop, site, standin):
    location = dict(parse_qsl(urlsplit(onward(start(alice_client, brand, standin.site_url(SLUG)))).query))
    response = alice_client.get(RETURN, {"brand": brand.pk, "success": "0", "user_id": location["user_id"]})

    assert response.status_code == 302
    assert any("did not hand the keys" in text for text in texts(response))
    assert confirm(alice_client, brand, location["user_id"]).status_code == 400


def test_another_brands_user_cannot_start_a_handover_for_this_brand(client, bob, brand, prop, site, standin):
    client.force_login(bob)

    assert start(client, brand, standin.site_url(SLUG)).status_code == 404
