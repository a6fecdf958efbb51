"""Time zone names: the zones a user may pick, and the one check that a name is one of them (the settings
form, the account page and UserSettings' validator all ask here). Which zone a signed-in user sees is
brands.user_zones'."""

from functools import lru_cache
from zoneinfo import available_timezones

from django.core.exceptions import ValidationError

DEFAULT = "UTC"


@lru_cache(maxsize=1)
def time_zone_names() -> frozenset[str]:
    """The zones a user may pick: UTC and the Region/City names of the IANA database."""
    regional = {
        name
        for name in available_timezones()
        if "/" in name and not name.startswith(("Etc/", "posix/", "right/", "SystemV/"))
    }
    return frozenset({DEFAULT, *regional})


def time_zones() -> list[str]:
    """The zones a user may pick, UTC first, then by name."""
    return [DEFAULT, *sorted(time_zone_names() - {DEFAULT})]


def is_time_zone(name: str) -> bool:
    return name in time_zone_names()


def validate_time_zone(name: str) -> None:
    """UserSettings.time_zone's validator."""
    if not is_time_zone(name):
        raise ValidationError(f"{name!r} is not a time zone name such as Europe/Berlin.")
