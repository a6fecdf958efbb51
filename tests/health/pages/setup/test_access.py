"""/health/setup/: a brand's integration kit pointing at this service, its creator links, and who may see
it (the brand's users, staff picking any brand; another brand's user gets a 404)."""

from django.test import Client

from attribution.models import CreatorLink
from health.log.models import OutcomeEvent
from tests import factories
from tests.health.pages.setup.conftest import SETUP, _page, _send


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
