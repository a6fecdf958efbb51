"""/health/: who sees the overview (signed in, her brand only, staff and users of several brands
picking one), its sign-out form and a page that loads nothing from elsewhere."""

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from attribution.outcomes import Outcome
from tests import factories

pytestmark = pytest.mark.django_db


URL = reverse("health:overview")


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={URL}"


def test_a_user_without_a_brand_is_told_to_ask_for_access(client, db):
    client.force_login(factories.UserFactory(username="nobody"))

    response = client.get(URL)

    assert response.status_code == 403
    assert b"No brand linked to your account" in response.content


def test_it_shows_the_users_brand(alice_client, brand):
    response = alice_client.get(URL)

    assert response.status_code == 200
    assert response.context["brand"] == brand
    assert response.context["brand_choices"] == []  # one brand: nothing to pick
    assert b'name="brand"' not in response.content


def test_a_brand_user_never_sees_another_brands_counts(alice_client, brand, other_brand, make_event):
    make_event(brand, Outcome.TRACKED)
    make_event(other_brand, Outcome.EXPIRED_CLICK, order_id="GLOBEX-1")
    make_event(other_brand, Outcome.EXPIRED_CLICK, endpoint="update")

    response = alice_client.get(URL)

    summary = response.context["summary"]
    assert summary.total == 1
    assert b"expired_click" not in response.content
    assert b"Globex" not in response.content


def test_a_brand_user_asking_for_another_brand_gets_404(alice_client, other_brand):
    assert alice_client.get(URL, {"brand": other_brand.pk}).status_code == 404
    assert alice_client.get(URL, {"brand": "not-a-number"}).status_code == 404


def test_staff_can_pick_any_brand(client, staff, brand, other_brand, make_event):
    make_event(other_brand, Outcome.EXPIRED_CLICK)
    client.force_login(staff)

    response = client.get(URL, {"brand": other_brand.pk})

    assert response.status_code == 200
    assert response.context["brand"] == other_brand
    assert response.context["summary"].total == 1
    assert set(response.context["brand_choices"]) == {brand, other_brand}
    # The pick is remembered for the next page without ?brand=.
    assert client.get(URL).context["brand"] == other_brand


def test_a_user_of_several_brands_picks_between_them_only(client, brand, other_brand):
    third = factories.BrandFactory(name="Initech")
    user = factories.MembershipFactory(brand=brand).user
    factories.MembershipFactory(brand=other_brand, user=user)
    client.force_login(user)

    response = client.get(URL, {"brand": other_brand.pk})

    assert response.context["brand"] == other_brand
    assert set(response.context["brand_choices"]) == {brand, other_brand}
    assert client.get(URL, {"brand": third.pk}).status_code == 404


def test_a_signed_in_user_who_opens_the_sign_in_page_goes_to_the_overview(alice_client):
    response = alice_client.get("/accounts/login/")

    assert response.status_code == 302
    assert response["Location"] == URL


def test_pages_carry_a_sign_out_form_that_posts_with_csrf(client, alice):
    client = type(client)(enforce_csrf_checks=True)
    client.force_login(alice)

    html = client.get(URL).content.decode()

    form = html[html.index(f'action="{reverse("logout")}"') - 40 :]
    form = form[: form.index("</form>")]
    assert 'method="post"' in form and 'name="csrfmiddlewaretoken"' in form
    assert client.post(reverse("logout")).status_code == 403  # no token: refused
    token = client.cookies["csrftoken"].value
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert client.get(URL).status_code == 302  # signed out


def test_pages_load_no_script_and_nothing_from_elsewhere(alice_client, brand, make_event):
    make_event(brand)

    html = alice_client.get(URL).content.decode()

    assert "<script" not in html
    assert 'href="/static/health/health.css"' in html
    assert finders.find("health/health.css")
    for external in ('src="http', 'href="http', 'src="//', 'href="//'):
        assert external not in html
