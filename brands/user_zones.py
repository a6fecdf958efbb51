"""The time zone each signed-in user sees times in (docs/health.md, "Time zones"); which names are zones is
brands.timezones'.

A user picks a zone once (`set_time_zone`, stored in brands.models.UserSettings); the middleware
activates it for each of her requests, so Django's template date filters, `localtime` and the admin show
her zone without a page doing anything. The zone's name is put in the session when she signs in: pages
read it from there at no cost. A change made for her in the admin applies from her next sign-in.
"""

from functools import lru_cache
from zoneinfo import ZoneInfo

from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from .models import UserSettings
from .timezones import DEFAULT, is_time_zone

SESSION_KEY = "time_zone"


@lru_cache(maxsize=512)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def zone_name_of(user) -> str:
    """The zone `user` picked, or UTC."""
    name = UserSettings.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first()
    return name if name and is_time_zone(name) else DEFAULT


def set_time_zone(request, name: str) -> None:
    """Store the signed-in user's zone and use it from this request on."""
    if not is_time_zone(name):
        raise ValueError(f"not a time zone: {name!r}")
    with transaction.atomic():
        UserSettings.objects.update_or_create(user=request.user, defaults={"time_zone": name})
    request.session[SESSION_KEY] = name
    timezone.activate(_zone(name))


@receiver(user_logged_in, dispatch_uid="brands.timezones.remember_zone")
def _remember_zone(sender, request, user, **kwargs):
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = zone_name_of(user)


class UserTimeZoneMiddleware:
    """Activates the signed-in user's zone for the request; anonymous requests (the API) stay in UTC.

    After AuthenticationMiddleware. A request without a session cookie never touches the session store.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            name = request.session.get(SESSION_KEY)
            if name is None or not is_time_zone(name):
                name = request.session[SESSION_KEY] = zone_name_of(user)
            timezone.activate(_zone(name))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
