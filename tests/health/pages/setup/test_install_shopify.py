"""The App URL (/health/setup/shopify/install): an install that starts on Shopify's side. Shopify's signed link
(`shop`, `timestamp`, `hmac`, `host`) is verified as the OAuth callback is; the merchant signs in, picks the
brand when she manages several, and goes on into the same OAuth flow as Connect with Shopify."""

import re
import time
from html import unescape
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from django.contrib.messages import get_messages

from attribution.management.demo.standin.shopify_routes import oauth_hmac
from brands.models import PlatformConnection
from health.pages.setup import install
from tests import factories
from tests.health.pages.setup.consent import consent
from tests.platform_standin import CLIENT_SECRET

SHOP = "acme.myshopify.com"
INSTALL = "/health/setup/shopify/install"
CONNECT = "/health/setup/shopify/connect"


@pytest.fixture
def shop(standin):
    return standin.add_shop(SHOP, id=9001, name="Acme", currency="EUR", timezone="Europe/Paris")


def link(*, shop=SHOP, timestamp=None, secret=CLIENT_SECRET, **changes) -> str:
    """Shopify's link to the App URL, signed with the app's client secret as Shopify signs it."""
    params = {
        "host": "YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUvYWNtZQ",
        "shop": shop,
        "timestamp": str(int(time.time() if timestamp is None else timestamp)),
    }
    params["hmac"] = oauth_hmac(params, secret)
    params.update(changes)
    return f"{INSTALL}?{urlencode(params)}"


def land(client, url=None):
    """The merchant follows Shopify's link: the verified shop is kept, and the App URL is shown again."""
    response = client.get(url or link())
    assert response.status_code == 302 and response["Location"] == INSTALL, response.content[:300]
    return client.get(INSTALL)


def continue_forms(response) -> list[dict]:
    """The page's Continue buttons: each a CSRF-checked POST to Connect with Shopify for one brand, with the shop."""
    assert response.status_code == 200, response.content[:300]
    page = response.content.decode().split('id="install-brand"', 1)[1]  # the page's own forms, not Sign out
    forms = []
    for action, body in re.findall(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', page, re.S):
        location = urlsplit(unescape(action))
        assert location.path == CONNECT and "csrfmiddlewaretoken" in body
        forms.append(
            {**dict(parse_qsl(location.query)), "shop": re.search(r'name="shop" value="([^"]+)"', body)[1]}
        )
    return forms


def press_continue(client, response):
    (form,) = continue_forms(response)
    return client.post(f"{CONNECT}?{urlencode({'brand': form['brand']})}", {"shop": form["shop"]})


def test_a_signed_in_merchant_of_one_brand_goes_on_into_oauth_and_the_shop_is_connected(
    alice_client, brand, prop, shop
):
    response = land(alice_client)

    assert continue_forms(response) == [{"brand": str(brand.pk), "shop": SHOP}]
    at_shopify = press_continue(alice_client, response)
    consent(alice_client, at_shopify)
    connection = PlatformConnection.objects.get(platform="shopify", shop_domain=SHOP)
    assert connection.brand == brand and connection.connected_via == "oauth" and connection.can_sync()
    assert connection.refresh_token_plain() in shop.refresh_tokens


def test_a_bad_hmac_is_refused_with_a_clear_page(alice_client, brand, prop, shop, standin):
    response = alice_client.get(link(hmac="0" * 64))

    assert response.status_code == 400
    assert "not signed by Shopify" in response.content.decode()
    assert install.PENDING not in alice_client.session
    assert standin.calls == []


def test_a_link_signed_with_another_secret_is_refused(client, db, shop):
    response = client.get(link(secret="not-the-apps-secret"))

    assert response.status_code == 400 and "not signed by Shopify" in response.content.decode()


def test_a_stale_timestamp_is_refused(alice_client, brand, prop, shop):
    response = alice_client.get(link(timestamp=time.time() - install.TIMESTAMP_SECONDS - 60))

    assert response.status_code == 400
    assert "too old" in response.content.decode()


def test_a_shop_that_is_not_a_myshopify_host_is_refused(alice_client, brand, prop, shop):
    assert alice_client.get(link(shop="acme.example")).status_code == 400


def test_the_app_url_without_shopifys_link_says_where_to_start(alice_client, brand, prop):
    response = alice_client.get(INSTALL)

    assert response.status_code == 400 and "Shopify admin" in response.content.decode()


def test_a_signed_out_merchant_signs_in_first_and_is_told_who_to_ask(client, alice, brand, prop, shop):
    response = land(client)

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={INSTALL}"
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("Sign in to connect acme.myshopify.com" in s and "account manager" in s for s in said)

    client.force_login(alice)  # the sign-in keeps the session's verified shop
    assert continue_forms(client.get(INSTALL)) == [{"brand": str(brand.pk), "shop": SHOP}]


def test_a_merchant_without_a_brand_is_told_to_ask_her_account_manager(client, db, shop):
    client.force_login(factories.UserFactory(username="carol"))

    response = land(client)

    assert response.status_code == 403
    assert "Ask your account manager" in response.content.decode()


def test_a_merchant_of_several_brands_picks_one_of_hers(client, alice, brand, prop, shop, other_brand):
    factories.MembershipFactory(brand=other_brand, user=alice)
    unrelated = factories.BrandFactory(name="Initech")
    client.force_login(alice)

    response = land(client)

    assert continue_forms(response) == [
        {"brand": str(brand.pk), "shop": SHOP},
        {"brand": str(other_brand.pk), "shop": SHOP},
    ]
    page = response.content.decode()
    assert "Connect to Acme" in page and "Connect to Globex" in page and "Initech" not in page
    assert str(unrelated.pk) not in [form["brand"] for form in continue_forms(response)]


def test_a_shop_one_of_her_brands_holds_goes_on_for_that_brand(client, alice, brand, shop, other_brand):
    factories.MembershipFactory(brand=other_brand, user=alice)
    held_prop = factories.PropertyFactory(brand=other_brand, host="globex.example")
    held = PlatformConnection(brand=other_brand, property=held_prop, platform="shopify", shop_domain=SHOP)
    held.set_secret("shpss_theirs")
    held.save()
    client.force_login(alice)

    assert continue_forms(land(client)) == [{"brand": str(other_brand.pk), "shop": SHOP}]


def test_the_verified_shop_is_used_once(alice_client, brand, prop, shop):
    land(alice_client)

    assert alice_client.get(INSTALL).status_code == 400
