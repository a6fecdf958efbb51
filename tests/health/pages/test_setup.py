"""/health/setup/: a brand's integration kit, and a test order through the real service and outcome log."""

import json
import re
from html import unescape

import pytest
from django.test import Client
from django.utils import timezone

from attribution.models import Commission, CreatorLink, Order
from health.log.models import OutcomeEvent
from tests import factories

SETUP = "/health/setup/"


@pytest.fixture
def alice(brand, prop):
    """A user of brand Acme (property shop.acme.example)."""
    return factories.MembershipFactory(brand=brand, user=factories.UserFactory(username="alice")).user


@pytest.fixture
def bob(other_brand, other_prop):
    """A user of brand Globex."""
    return factories.MembershipFactory(brand=other_brand, user=factories.UserFactory(username="bob")).user


def _page(response) -> str:
    assert response.status_code == 200, response.content.decode()[:1000]
    return unescape(response.content.decode())


def _send(client, brand, **fields):
    data = {"host": "shop.acme.example", "order_amount": "10.00", "currency": "USD", "code": "", **fields}
    return client.post(f"{SETUP}?brand={brand.pk}", data)


# --- who sees what ------------------------------------------------------------------------------------------


def test_a_brand_user_sees_the_kit_pointing_at_this_service(client, alice, brand):
    client.force_login(alice)

    page = _page(client.get(SETUP))

    assert '<script src="http://testserver/static/attribution/sms-click.js" async></script>' in page
    assert '<script src="http://testserver/static/attribution/sms-order.js"></script>' in page
    assert "smsOrderConfirmation({" in page
    assert "endpoint:" not in page  # the order script finds the endpoint from its own address
    assert "curl -sS -X POST 'http://testserver/api/Affiliates/cancel'" in page
    assert "curl -sS -X POST 'http://testserver/api/Affiliates/update'" in page
    assert "Authorization: Bearer YOUR_DEVELOPER_KEY" in page
    assert "shop.acme.example" in page
    assert "Acme" in page


def test_the_scripts_it_points_at_are_served_by_whitenoise(settings, db):
    settings.WHITENOISE_USE_FINDERS = True  # what collectstatic gives production, without collecting here
    client = Client()  # a fresh handler, so the middleware reads the setting

    for name, marker in (("sms-click.js", "smsclickid"), ("sms-order.js", "window.smsOrderConfirmation")):
        response = client.get(f"/static/attribution/{name}")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/javascript")
        assert response["Access-Control-Allow-Origin"] == "*"
        assert marker in b"".join(response.streaming_content).decode()


def test_the_page_never_shows_a_developer_key(client, alice, brand):
    _, plaintext = factories.issue_key(brand)
    client.force_login(alice)

    page = _page(client.get(SETUP))

    assert plaintext not in page
    assert plaintext.split(".")[0] not in page


def test_it_lists_the_brands_active_creator_links(client, alice, brand, creator, other_brand, other_prop):
    CreatorLink.objects.create(
        brand=brand, creator=creator, code="ana-summer", destination_url="https://shop.acme.example/"
    )
    CreatorLink.objects.create(
        brand=brand,
        creator=creator,
        code="ana-old",
        destination_url="https://shop.acme.example/",
        is_active=False,
    )
    stranger = factories.CreatorFactory(brand=other_brand, name="Bo")
    CreatorLink.objects.create(
        brand=other_brand, creator=stranger, code="bo-link", destination_url="https://globex.example/"
    )
    client.force_login(alice)

    page = _page(client.get(SETUP))

    assert "http://testserver/l/ana-summer" in page
    assert "ana-old" not in page
    assert "bo-link" not in page


def test_another_brands_user_cannot_open_this_brands_setup(client, alice, bob, brand):
    client.force_login(bob)

    assert client.get(f"{SETUP}?brand={brand.pk}").status_code == 404
    own = _page(client.get(SETUP))
    assert "globex.example" in own and "shop.acme.example" not in own


def test_an_anonymous_visitor_is_sent_to_sign_in(client, brand):
    response = client.get(SETUP)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert _send(client, brand).status_code == 302
    assert not OutcomeEvent.objects.exists()


def test_staff_pick_any_brand(client, brand, prop, other_brand, other_prop):
    client.force_login(factories.UserFactory(is_staff=True))

    page = _page(client.get(f"{SETUP}?brand={other_brand.pk}"))

    assert "globex.example" in page


def test_a_user_without_a_brand_is_told_so(client, db):
    client.force_login(factories.UserFactory())

    assert client.get(SETUP).status_code == 403


def test_a_brand_without_a_property_is_told_to_register_one(client, brand):
    client.force_login(factories.MembershipFactory(brand=brand).user)

    page = _page(client.get(SETUP))

    assert "No registered property yet" in page
    assert "Send a test order</button>" not in page


# --- the test order -----------------------------------------------------------------------------------------


def test_a_test_order_goes_through_the_service_and_the_outcome_log(client, alice, brand):
    client.force_login(alice)

    response = _send(client, brand)

    event = OutcomeEvent.objects.get()
    assert response.status_code == 302
    assert response["Location"].startswith(f"{SETUP}?brand={brand.pk}&sent={event.pk}&")
    assert (event.brand, event.endpoint, event.outcome, event.http_status, event.is_test) == (
        brand,
        "order_confirmation",
        "no_attribution",
        200,
        True,
    )
    assert json.loads(event.request_body)["test"] is True
    assert json.loads(event.request_body)["page_url"] == "https://shop.acme.example/setup-test"
    assert event.response_body["outcome"] == "no_attribution"
    order = Order.objects.get()
    assert (order.brand, order.order_id, order.is_test) == (brand, event.order_id, True)
    assert re.fullmatch(r"setup-test-\d{8}-\d{6}-[0-9a-f]{6}", order.order_id)

    shown = _page(client.get(response["Location"]))
    assert f"Test order {order.order_id}:" in shown
    assert "no_attribution" in shown
    assert "Order recorded; it matched no click, discount code or known shopper." in shown


def test_a_test_order_with_a_registered_code_is_tracked_as_test(client, alice, brand, creator):
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    client.force_login(alice)

    response = _send(client, brand, code="ana10", order_amount="59.90")

    commission = Commission.objects.get()
    assert (commission.is_test, commission.creator, str(commission.amount)) == (True, creator, "5.990000")
    assert OutcomeEvent.objects.get().outcome == "tracked"
    assert "tracked" in _page(client.get(response["Location"]))


def test_a_bad_currency_shows_the_services_answer(client, alice, brand):
    client.force_login(alice)

    response = _send(client, brand, currency="dollars")

    event = OutcomeEvent.objects.get()
    assert (event.outcome, event.http_status, event.brand, event.is_test) == (
        "invalid_params",
        400,
        brand,
        True,
    )
    assert not Order.objects.exists()
    shown = _page(client.get(response["Location"]))
    assert "invalid_params" in shown and "currency" in shown


def test_a_host_of_another_brand_is_refused_before_anything_is_sent(client, alice, brand, other_prop):
    client.force_login(alice)

    response = _send(client, brand, host="globex.example")

    assert response.status_code == 200
    assert "Select a valid choice" in _page(response)
    assert not OutcomeEvent.objects.exists()


def test_another_brands_user_cannot_send_a_test_order_for_this_brand(client, bob, brand):
    client.force_login(bob)

    assert _send(client, brand).status_code == 404
    assert not OutcomeEvent.objects.exists()


def test_another_brands_test_result_is_not_shown(client, alice, bob, brand, other_brand):
    client.force_login(bob)
    _send(client, other_brand, host="globex.example")
    bobs_event = OutcomeEvent.objects.get()
    client.force_login(alice)

    page = _page(client.get(f"{SETUP}?brand={brand.pk}&sent={bobs_event.pk}"))

    assert bobs_event.order_id not in page


def test_the_test_order_needs_the_csrf_token(alice, brand):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    assert _send(client, brand).status_code == 403
    assert not OutcomeEvent.objects.exists()


# --- the form remembers -------------------------------------------------------------------------------------


def _initial(response) -> dict:
    form = response.context["form"]
    return {name: form[name].value() for name in ("host", "order_amount", "currency", "code")}


def test_the_form_starts_from_the_brands_primary_property(client, alice, brand):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")  # first alphabetically
    factories.PropertyFactory(brand=brand, host="eu.acme.example", is_primary=True)
    client.force_login(alice)

    assert _initial(client.get(SETUP))["host"] == "eu.acme.example"


def test_without_a_primary_property_the_form_starts_from_the_first_registered(client, alice, brand, prop):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")  # registered later
    client.force_login(alice)

    assert _initial(client.get(SETUP))["host"] == "shop.acme.example"


def test_after_a_test_order_the_form_keeps_what_was_sent(client, alice, brand, creator):
    factories.PropertyFactory(brand=brand, host="aaa.acme.example")
    factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    client.force_login(alice)

    response = _send(
        client, brand, host="shop.acme.example", order_amount="42.50", currency="EUR", code="ANA10"
    )
    shown = client.get(response["Location"])

    assert _initial(shown) == {
        "host": "shop.acme.example",
        "order_amount": "42.50",
        "currency": "EUR",
        "code": "ANA10",
    }
    assert response["Location"].endswith("#test-result")
    assert 'id="test-result"' in _page(shown)


def test_a_sent_value_edited_away_in_the_address_bar_falls_back_to_the_default(client, alice, brand, prop):
    client.force_login(alice)

    shown = client.get(SETUP, {"brand": brand.pk, "sent": "1", "host": "evil.example", "order_amount": "9"})

    assert _initial(shown)["host"] == "shop.acme.example"
    assert _initial(shown)["order_amount"] == "9"


# --- storefront platforms: connect a shop, paste its secret, send a signed test order ----------------------

SECRET = "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"


def _connect(client, brand, prop, **fields):
    data = {
        "form": "connection",
        "platform": "shopify",
        "shop_domain": "acme-demo.myshopify.com",
        "property": prop.pk,
        "signing_secret": SECRET,
        "amount_counted": "subtotal",
        "order_id_source": "id",
        **fields,
    }
    return client.post(f"{SETUP}?brand={brand.pk}", data)


def test_a_brand_user_connects_her_shop_and_never_sees_the_secret_again(client, alice, brand, prop):
    client.force_login(alice)

    response = _connect(client, brand, prop)

    assert response.status_code == 302
    connection = brand.platform_connections.get()
    assert (connection.shop_domain, connection.property, connection.is_enabled) == (
        "acme-demo.myshopify.com",
        prop,
        True,
    )
    page = _page(client.get(response.url))
    assert "acme-demo.myshopify.com saved" in page
    assert SECRET not in page and connection.secret not in page
    assert "kept, encrypted" in page
    assert "http://testserver/api/platforms/shopify" in page
    assert "Settings → Notifications → Webhooks" in page
    assert "WooCommerce → Settings → Advanced → Webhooks" in page


def test_the_same_shop_again_replaces_the_secret_and_keeps_one_connection(client, alice, brand, prop):
    client.force_login(alice)
    _connect(client, brand, prop)

    _connect(client, brand, prop, signing_secret="the-new-secret", amount_counted="total")

    connection = brand.platform_connections.get()
    assert connection.amount_counted == "total"
    assert list(connection.signing_secrets(now=connection.secret_replaced_at)) == ["the-new-secret", SECRET]


def test_a_new_connection_needs_its_secret_and_a_shopify_domain(client, alice, brand, prop):
    client.force_login(alice)

    page = _page(_connect(client, brand, prop, shop_domain="shop.acme.example", signing_secret=""))

    assert "Paste the signing secret the platform shows." in page
    assert "myshopify.com domain" in page
    assert not brand.platform_connections.exists()


def test_another_brand_s_property_cannot_be_picked(client, alice, brand, prop, other_prop):
    client.force_login(alice)

    page = _page(_connect(client, brand, prop, property=other_prop.pk))

    assert "Select a valid choice" in page
    assert not brand.platform_connections.exists()


def test_a_shop_another_brand_has_is_only_a_pending_claim(
    client, alice, brand, prop, other_brand, other_prop
):
    from tests.attribution.platforms.conftest import connect

    theirs = connect(other_prop, platform="shopify", shop_domain="acme-demo.myshopify.com", secret="x")
    client.force_login(alice)

    page = _page(client.get(_connect(client, brand, prop).url))

    assert "waits for your account manager's approval" in page and "pending approval" in page
    assert brand.platform_connections.get().is_pending()
    theirs.refresh_from_db()
    assert not theirs.is_pending()  # the shop stays the other brand's


def test_bob_cannot_touch_alice_s_connection(client, alice, bob, brand, prop):
    client.force_login(alice)
    _connect(client, brand, prop)
    connection = brand.platform_connections.get()
    client.force_login(bob)

    response = client.post(
        f"{SETUP}?brand={brand.pk}", {"form": "toggle", "connection": connection.pk, "enabled": "0"}
    )

    assert response.status_code == 404
    connection.refresh_from_db()
    assert connection.is_enabled is True


def test_an_anonymous_visitor_cannot_connect_a_shop(client, brand):
    response = client.post(SETUP, {"form": "connection"})

    assert response.status_code == 302
    assert "/accounts/login/" in response.url


def test_a_connection_is_disabled_and_enabled_again(client, alice, brand, prop):
    client.force_login(alice)
    _connect(client, brand, prop)
    connection = brand.platform_connections.get()

    client.post(f"{SETUP}?brand={brand.pk}", {"form": "toggle", "connection": connection.pk, "enabled": "0"})
    connection.refresh_from_db()
    assert connection.is_enabled is False
    client.post(f"{SETUP}?brand={brand.pk}", {"form": "toggle", "connection": connection.pk, "enabled": "1"})
    connection.refresh_from_db()
    assert connection.is_enabled is True


def test_the_signed_test_curl_signs_with_the_pasted_secret_and_is_taken(client, alice, brand, prop, tmp_path):
    """Run the page's snippet as a shell would (openssl computes the HMAC), and send its body and headers."""
    import shutil
    import subprocess

    if not shutil.which("openssl") or not shutil.which("bash"):
        pytest.skip("the snippet needs bash and openssl")
    client.force_login(alice)
    _connect(client, brand, prop)
    brand.platform_connections.update(approved_at=timezone.now())  # as the account manager does in the admin
    page = _page(client.get(f"{SETUP}?brand={brand.pk}"))
    [snippet] = re.findall(r'<pre class="json" data-copy id="curl-\d+">(.*?)</pre>', page, re.S)
    # Everything before the curl line, as pasted (the secret filled in), then what curl would send.
    before_curl = snippet.split("\ncurl ")[0].replace("PASTE_THE_SIGNING_SECRET", SECRET)
    script = before_curl + '\necho "$BODY"; echo "$SIG"; echo "$RUN"'
    out = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    body, sig, run = out[0], out[1], out[2]

    response = client.generic(
        "POST",
        "/api/platforms/shopify",
        body.encode(),
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="orders/create",
        HTTP_X_SHOPIFY_SHOP_DOMAIN="acme-demo.myshopify.com",
        HTTP_X_SHOPIFY_HMAC_SHA256=sig,
        HTTP_X_SHOPIFY_WEBHOOK_ID=f"setup-test-{run}",
    )

    assert response.json()["outcome"] == "no_attribution"
    assert Order.objects.get(order_id=run).is_test is True
