"""/health/account/: a signed-in user picks the time zone her pages and CSV files show times in."""

from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from brands.models import UserSettings

pytestmark = pytest.mark.django_db

URL = reverse("health:account")
OVERVIEW = reverse("health:overview")


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_user_who_never_picked_sees_utc(alice_client):
    response = alice_client.get(URL)

    assert response.status_code == 200
    assert response.context["form"].initial["time_zone"] == "UTC"
    assert "Times are in <strong>UTC</strong>" in response.content.decode()


def test_a_user_picks_her_zone_and_her_pages_use_it_from_then_on(alice_client, alice):
    response = alice_client.post(URL, {"time_zone": "Europe/Berlin", "next": OVERVIEW})

    assert response.status_code == 302 and response["Location"] == OVERVIEW
    assert UserSettings.objects.get(user=alice).time_zone == "Europe/Berlin"
    page = alice_client.get(OVERVIEW)
    assert page.context["TIME_ZONE"] == "Europe/Berlin"
    assert "Times are in <strong>Europe/Berlin</strong>" in page.content.decode()


def test_her_zone_follows_her_to_her_next_sign_in(client, alice):
    client.force_login(alice)
    client.post(URL, {"time_zone": "Asia/Tokyo"})
    client.logout()

    client.force_login(alice)

    assert client.get(OVERVIEW).context["TIME_ZONE"] == "Asia/Tokyo"


def test_another_users_pick_never_changes_hers(client, alice, bob):
    client.force_login(bob)
    client.post(URL, {"time_zone": "Asia/Tokyo"})
    client.logout()

    client.force_login(alice)

    assert client.get(OVERVIEW).context["TIME_ZONE"] == "UTC"


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "", "localtime", "../../etc/passwd"])
def test_a_name_that_is_no_time_zone_is_refused(alice_client, alice, zone):
    response = alice_client.post(URL, {"time_zone": zone})

    assert response.status_code == 200
    assert response.context["form"].errors["time_zone"]
    assert not UserSettings.objects.filter(user=alice).exists()


def test_it_goes_back_only_to_pages_of_this_service(alice_client):
    response = alice_client.post(URL, {"time_zone": "Europe/Berlin", "next": "https://evil.example/"})

    assert response["Location"] == URL


def test_every_time_zone_offered_can_be_used(alice_client):
    offered = [value for value, _ in alice_client.get(URL).context["form"].fields["time_zone"].choices]

    assert offered[0] == "UTC" and "Europe/Berlin" in offered and "America/Argentina/Buenos_Aires" in offered
    for name in offered:
        ZoneInfo(name)
