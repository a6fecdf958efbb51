"""/health/setup/: a brand's storefront-platform connections: connect a shop, paste its secret (never shown
again), disable and enable it, and a signed test order that the platform's receiver takes."""

import re

import pytest
from django.utils import timezone

from attribution.models import Order
from brands.models import PlatformConnection
from tests.health.pages.setup.conftest import SETUP, _page

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


def test_a_shop_connected_by_oauth_has_its_options_changed_without_a_secret(client, alice, brand, prop):
    """The app's secret signs an OAuth connection's webhooks: the brand has none to paste (round six, "Also")."""
    connection = PlatformConnection(
        brand=brand,
        property=prop,
        platform="shopify",
        shop_domain="acme-demo.myshopify.com",
        connected_via=PlatformConnection.ConnectedVia.OAUTH,
    )
    connection.set_credential("shpat_token")
    connection.save()
    client.force_login(alice)

    response = _connect(
        client, brand, prop, signing_secret="", amount_counted="total", order_id_source="name"
    )

    assert response.status_code == 302, _page(response)[:2000]
    connection.refresh_from_db()
    assert (connection.amount_counted, connection.order_id_source, connection.secret) == ("total", "name", "")
    assert connection.credential_plain() == "shpat_token" and connection.can_sync()
