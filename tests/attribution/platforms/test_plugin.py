"""A storefront platform is a plug-in: a module that declares its names, labels, signature scheme, headers,
delivery id, topics, order shape, shop domains, setup steps and setup test request, registered in
attribution.platforms.registry. A third platform, declared here and nowhere else, is a connection's platform in
the admin and on the setup page, gets its receiver, its outcome rows with their labels, its setup steps and its
test request, without a line changed outside attribution/platforms/ and no constraint lifted."""

import hmac
import importlib
import json
from html import unescape

import pytest
from django.test import Client, RequestFactory
from django.urls import clear_url_caches, reverse

import config.urls
from attribution import outcomes
from attribution.models import Commission, Order, PlatformDelivery
from attribution.outcomes import endpoints
from attribution.platforms import registry
from attribution.platforms import urls as platform_urls
from attribution.platforms.notice import Action, OrderNotice, PlatformOrder, moment
from attribution.platforms.platform import Platform, SetupRequest
from brands.models import PlatformConnection
from health.log.models import OutcomeEvent
from health.pages.setup.views import signed_test_curl
from tests import factories
from tests.factories import ClickFactory

SECRET = "tiny_secret_5c1d"
SHOP = "corner.tinyshop.example"


class Tinyshop(Platform):
    name = "tinyshop"
    title = "Tinyshop"
    endpoint_label = "Tinyshop webhook"
    change_label = "Tinyshop webhook: change"
    shop_header = "HTTP_X_TINY_SHOP"
    signature_header = "HTTP_X_TINY_SIGNATURE"
    signature_header_name = "X-Tiny-Signature"
    # A scheme neither Shopify nor WooCommerce uses: the hex HMAC-SHA512 of the raw body.
    signature_scheme = "HMAC-SHA512"
    signature_shell = 'printf \'%s\' "$BODY" | openssl dgst -sha512 -hmac "$SECRET" -hex | cut -d" " -f2'
    topic_header = "HTTP_X_TINY_EVENT"
    delivery_id_header = "HTTP_X_TINY_DELIVERY"
    topics = frozenset({"order.paid", "order.voided"})
    setup_steps = (
        "In your Tinyshop back office, open <strong>Apps → Webhooks</strong>.",
        'Add the URL <code class="break">{webhook_url}</code> for <em>order paid</em> and <em>order voided</em>.',
    )
    test_note = "It sends a signed <code>order.paid</code> of a test order."

    def signature(self, body: bytes, secret: str) -> str:
        return hmac.new(secret.encode(), body, "sha512").hexdigest()

    def shop_domain_problem(self, domain: str) -> str:
        return (
            "" if domain.endswith(".tinyshop.example") else "Enter the shop's name.tinyshop.example domain."
        )

    def kept(self, order: dict) -> dict:
        return {name: order[name] for name in ("ref", "total", "currency", "status") if name in order}

    def read(self, notice: OrderNotice, *, document, connection) -> OrderNotice:
        topic = notice.topic
        order = PlatformOrder(
            order_id=document.get("ref"),
            amount=document.get("total"),
            currency=document.get("currency"),
            clicks=[["the order's click", document.get("click")]],
            cancelled=topic == "order.voided",
            placed_at=moment(document.get("placed")),
            names={"order_id": "ref", "amount": "total"},
        )
        return notice.asking(Action.CANCEL if topic == "order.voided" else Action.RECORD, order)

    def test_request(self, connection) -> SetupRequest:
        return SetupRequest(
            body="""{"ref":"T'"$RUN"'","total":"1.00","currency":"EUR","status":"test"}""",
            headers=["Content-Type: application/json", f"X-Tiny-Shop: {connection.shop_domain}"],
            signed=['"X-Tiny-Signature: $SIG"', '"X-Tiny-Delivery: setup-test-$RUN"'],
        )


def _reload_urls():
    importlib.reload(platform_urls)
    importlib.reload(config.urls)
    clear_url_caches()


@pytest.fixture
def tinyshop():
    platform = registry.register(Tinyshop())
    _reload_urls()
    yield platform
    registry.unregister(platform.name)
    _reload_urls()


def connect_in_admin(prop, **fields):
    """An account manager connects the shop in the admin, as any connection is made there."""
    manager = Client()
    manager.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    data = {
        "brand": prop.brand_id,
        "platform": "tinyshop",
        "shop_domain": SHOP,
        "property": prop.pk,
        "signing_secret": SECRET,
        "amount_counted": "subtotal",
        "order_id_source": "id",
        "is_enabled": "on",
        **fields,
    }
    return manager.post("/admin/brands/platformconnection/add/", data)


@pytest.fixture
def corner(prop, tinyshop):
    answer = connect_in_admin(prop)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return PlatformConnection.objects.get(platform="tinyshop")


def send(client, topic: str, document: dict, *, delivery: str, secret: str = SECRET):
    raw = json.dumps(document).encode()
    return client.generic(
        "POST",
        "/api/platforms/tinyshop",
        raw,
        content_type="application/json",
        HTTP_X_TINY_SHOP=SHOP,
        HTTP_X_TINY_EVENT=topic,
        HTTP_X_TINY_DELIVERY=delivery,
        HTTP_X_TINY_SIGNATURE=Tinyshop().signature(raw, secret),
    )


def test_a_platform_registered_in_the_registry_receives_a_signed_order_and_records_it(
    client, corner, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)

    response = send(
        client,
        "order.paid",
        {"ref": "T-1001", "total": "42.00", "currency": "EUR", "click": click.click_id},
        delivery="d-1",
    )

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "outcome": "tracked",
        "message": "Order attributed; a commission was created.",
    }
    order = Order.objects.get()
    assert (order.order_id, order.click, order.via_platform, order.via_api) == ("T-1001", click, True, False)
    assert Commission.objects.get(order=order).creator == creator
    assert PlatformDelivery.objects.filter(connection=corner, delivery_id="d-1", verified=True).exists()
    row = OutcomeEvent.objects.get()
    assert (row.endpoint, row.outcome, row.http_status, row.order_id) == (
        "tinyshop",
        "tracked",
        200,
        "T-1001",
    )
    assert endpoints.label(row.endpoint) == "Tinyshop webhook"
    assert outcomes.info(row.outcome, row.endpoint).label == (
        "Order attributed: commission created from the platform's order"
    )


def test_a_registered_platform_s_change_is_a_row_of_its_change_endpoint(client, corner, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    order = {"ref": "T-1002", "total": "42.00", "currency": "EUR", "click": click.click_id}
    send(client, "order.paid", order, delivery="d-1")

    response = send(client, "order.voided", order, delivery="d-2")

    assert response.status_code == 200
    assert Commission.objects.get().state == "cancelled"
    rows = [(r.endpoint, r.outcome) for r in OutcomeEvent.objects.order_by("id")]
    assert rows == [("tinyshop", "tracked"), ("tinyshop_change", "tracked")]
    assert endpoints.label("tinyshop_change") == "Tinyshop webhook: change"
    assert outcomes.info("tracked", "tinyshop_change").label == (
        "Took effect: the commission followed the platform's order (its amount, or its cancel)"
    )
    assert endpoints.counts_as_order("tinyshop", "tracked")
    assert not endpoints.counts_as_order("tinyshop_change", "tracked")


def test_the_event_page_of_a_registered_platform_s_delivery_shows_its_labels_and_kept_order(
    client, corner, brand, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    order = {
        "ref": "T-1004",
        "total": "42.00",
        "currency": "EUR",
        "click": click.click_id,
        "email": "x@y.example",
    }
    send(client, "order.paid", order, delivery="d-1")
    send(client, "order.voided", order, delivery="d-2")
    client.force_login(factories.MembershipFactory(brand=brand).user)

    for row, label in zip(
        OutcomeEvent.objects.order_by("id"), ["Tinyshop webhook", "Tinyshop webhook: change"], strict=True
    ):
        page = unescape(client.get(reverse("health:event", args=[row.pk])).content.decode())

        assert label in page
        assert "(the platform's order: the fields the service reads, as received" in page
        assert '"ref": "T-1004"' in page and "x@y.example" not in page  # only what its `kept` keeps


def test_a_registered_platform_s_own_signature_scheme_decides_and_names_the_refusal(client, corner):
    response = send(
        client,
        "order.paid",
        {"ref": "T-1003", "total": "42.00", "currency": "EUR"},
        delivery="d-3",
        secret="x",
    )

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "HMAC-SHA512"
    assert response.json()["outcome"] == "invalid_signature"
    assert "X-Tiny-Signature header does not match" in response.json()["error"]
    assert not Order.objects.exists()
    row = OutcomeEvent.objects.get()
    assert (row.endpoint, row.outcome, row.brand_id) == ("tinyshop", "invalid_signature", corner.brand_id)
    assert PlatformDelivery.objects.get(verified=False).delivery_id == "d-3"


def test_the_setup_page_s_test_request_for_a_registered_platform_is_its_own(corner):
    request = RequestFactory().get("/health/setup/")

    curl = signed_test_curl(request, corner)

    assert reverse("platforms:tinyshop") == "/api/platforms/tinyshop"
    assert "curl -sS -w '\\n' -X POST 'http://testserver/api/platforms/tinyshop' \\" in curl
    assert f"SIG=$({Tinyshop.signature_shell})" in curl
    assert f"  -H 'X-Tiny-Shop: {SHOP}' \\" in curl
    assert '  -H "X-Tiny-Signature: $SIG" \\' in curl


def test_a_platform_s_name_must_fit_the_outcome_log_s_endpoint():
    class TooLong(Tinyshop):
        name = "a_platform_with_a_long_name"

    with pytest.raises(ValueError, match="at most 17 characters"):
        registry.register(TooLong())
    assert "a_platform_with_a_long_name" not in registry.PLATFORMS


def test_an_account_manager_connects_a_registered_platform_s_shop_in_the_admin(corner, prop):
    assert (corner.brand, corner.property, corner.shop_domain) == (prop.brand, prop, SHOP)
    assert not corner.is_pending()  # made in the admin: approved as it is made
    assert list(corner.signing_secrets(now=corner.created_at)) == [SECRET]
    assert str(corner) == f"Tinyshop {SHOP}"


def test_the_connection_forms_offer_every_registered_platform_by_its_title(db, tinyshop):
    manager = Client()
    manager.force_login(factories.UserFactory(is_staff=True, is_superuser=True))

    page = manager.get("/admin/brands/platformconnection/add/").content.decode()

    assert '<option value="shopify">Shopify</option>' in page
    assert '<option value="tinyshop">Tinyshop</option>' in page


def test_the_admin_lists_a_registered_platform_s_connections_by_its_title(corner, other_prop):
    PlatformConnection.objects.create(
        brand=other_prop.brand,
        property=other_prop,
        platform="shopify",
        shop_domain="b.myshopify.com",
        secret="x",
    )
    manager = Client()
    manager.force_login(factories.UserFactory(is_staff=True, is_superuser=True))

    page = manager.get("/admin/brands/platformconnection/?platform=tinyshop").content.decode()

    assert (
        f'<th class="field-shop_domain"><a href="/admin/brands/platformconnection/{corner.pk}/change/?'
        in page
    )
    assert '<td class="field-platform_title">Tinyshop</td>' in page
    assert "b.myshopify.com" not in page
    assert '<a href="?platform=tinyshop">Tinyshop</a>' in page.replace("\n    ", "")


def test_a_registered_platform_s_own_shop_domain_check_refuses_another_domain(prop, tinyshop):
    answer = connect_in_admin(prop, shop_domain="corner.example.com")

    assert answer.status_code == 200
    assert "Enter the shop&#x27;s name.tinyshop.example domain." in answer.content.decode()
    assert not PlatformConnection.objects.exists()


def test_a_platform_nobody_registered_is_no_connection_s_platform(prop):
    answer = connect_in_admin(prop)  # no tinyshop fixture: the platform is not registered

    assert answer.status_code == 200
    assert "Select a valid choice. tinyshop is not one of the available choices." in answer.content.decode()
    assert not PlatformConnection.objects.exists()


def test_a_brand_user_connects_a_registered_platform_s_shop_and_the_setup_page_shows_its_steps(
    client, brand, prop, tinyshop
):
    client.force_login(factories.MembershipFactory(brand=brand).user)
    setup = f"/health/setup/?brand={brand.pk}"
    data = {"platform": "tinyshop", "shop_domain": SHOP, "property": prop.pk, "signing_secret": SECRET}

    answer = client.post(
        setup, {"form": "connection", "amount_counted": "total", "order_id_source": "id", **data}
    )

    assert answer.status_code == 302
    shop = PlatformConnection.objects.get()
    assert (shop.platform, shop.shop_domain, shop.amount_counted, shop.is_pending()) == (
        "tinyshop",
        SHOP,
        "total",
        True,
    )
    page = unescape(client.get(setup).content.decode())
    assert "Storefront platform: Shopify, WooCommerce or Tinyshop" in page
    assert f'<strong>Tinyshop</strong> <code class="break-at">{SHOP.replace(".", ".<wbr>")}</code>' in page
    assert '<div class="card" id="tinyshop-steps">\n      <h3>Tinyshop</h3>' in page
    assert "<li>In your Tinyshop back office, open <strong>Apps → Webhooks</strong>.</li>" in page
    assert (
        '<li>Add the URL <code class="break">http://testserver/api/platforms/tinyshop</code> for <em>order paid</em> '
        "and <em>order voided</em>.</li>"
    ) in page
    assert f"<h3>Send a test order to Tinyshop {SHOP}</h3>" in page
    assert "It sends a signed <code>order.paid</code> of a test order.</p>" in page
    assert "curl -sS -w '\\n' -X POST 'http://testserver/api/platforms/tinyshop'" in page
