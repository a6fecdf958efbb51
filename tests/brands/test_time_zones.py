"""brands.user_zones: each signed-in user's requests run in the zone she picked; anonymous ones in UTC."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import HttpResponse
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from brands.models import UserSettings
from brands.user_zones import SESSION_KEY, UserTimeZoneMiddleware
from tests import factories

pytestmark = pytest.mark.django_db


def zone_seen_by(client, path="/health/"):
    return client.get(path).context["TIME_ZONE"]


def test_without_a_pick_a_user_sees_utc(client):
    client.force_login(factories.UserFactory())

    assert zone_seen_by(client, "/health/account/") == "UTC"


def test_the_zone_is_read_once_at_sign_in_then_from_the_session(client):
    user = factories.UserFactory()
    UserSettings.objects.create(user=user, time_zone="Europe/Berlin")
    client.force_login(user)

    with CaptureQueriesContext(connection) as queries:
        assert zone_seen_by(client, "/health/account/") == "Europe/Berlin"

    assert not [q for q in queries if "brands_usersettings" in q["sql"]]
    assert client.session[SESSION_KEY] == "Europe/Berlin"


def test_a_session_from_before_time_zones_reads_the_zone_once(client):
    user = factories.UserFactory()
    UserSettings.objects.create(user=user, time_zone="Asia/Tokyo")
    client.force_login(user)
    session = client.session
    del session[SESSION_KEY]
    session.save()

    assert zone_seen_by(client, "/health/account/") == "Asia/Tokyo"
    assert client.session[SESSION_KEY] == "Asia/Tokyo"


def test_an_anonymous_request_runs_in_utc_and_leaves_no_zone_behind(rf):
    seen = {}

    def view(request):
        seen["zone"] = timezone.get_current_timezone_name()
        return HttpResponse()

    request = rf.post("/api/order_confirmation")
    request.user = AnonymousUser()
    timezone.activate("Asia/Tokyo")  # left over from anything before: not this request's zone

    UserTimeZoneMiddleware(view)(request)

    assert seen["zone"] == "UTC"
    assert timezone.get_current_timezone_name() == "UTC"  # and nothing leaks to the next request


@pytest.mark.parametrize("zone", ["Europe/Berlin", "UTC", "America/Argentina/Buenos_Aires"])
def test_a_time_zone_name_is_accepted(zone):
    UserSettings(user=factories.UserFactory(), time_zone=zone).full_clean()


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "", "localtime", "Etc/GMT+5", "europe/berlin"])
def test_anything_else_is_refused(zone):
    with pytest.raises(ValidationError):
        UserSettings(user=factories.UserFactory(), time_zone=zone).full_clean()
