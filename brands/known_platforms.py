"""The storefront platforms a connection may name, as brands knows them.

A connection keeps its platform as a plain name (PlatformConnection.platform: its CHECK only asks for the shape of
one). Which names exist is attribution's to say (attribution.platforms.registry), and brands sits below
attribution: so the registry tells each platform here as it registers it, when Django starts. The connection's
validation, its title and the connection forms' choices (brands.forms: the admin's and the setup page's) read
this list; nothing here imports upward.

A platform told here has a `name`, a `title`, a `shop_domain_problem(domain) -> str` (what is wrong with a
shop's domain for it, empty when nothing is) and a `shop_key(value)` (how its shops are keyed: the host, or for
WooCommerce the site's host and path): attribution.platforms.platform.Platform.
"""

import re
from typing import Protocol

from brands.hosts import normalize_host

# What PlatformConnection.platform may hold (its CHECK constraint says the same): a lowercase name of letters,
# digits and underscores starting with a letter, at most 17 characters (the outcome log's endpoint holds the
# name and "_change" in 24).
MAX_NAME_LENGTH = 17
NAME_SHAPE = rf"\A[a-z][a-z0-9_]{{0,{MAX_NAME_LENGTH - 1}}}\Z"


class KnownPlatform(Protocol):
    name: str
    title: str

    def shop_domain_problem(self, domain: str) -> str: ...

    def shop_key(self, value: str) -> str | None: ...


KNOWN: dict[str, KnownPlatform] = {}


def know(platform: KnownPlatform) -> None:
    """Called by attribution.platforms.registry for each platform it registers."""
    if not re.fullmatch(NAME_SHAPE, platform.name):
        raise ValueError(
            "a platform's name is lowercase letters, digits and underscores, starting with a letter, "
            f"at most {MAX_NAME_LENGTH} characters"
        )
    KNOWN[platform.name] = platform


def forget(name: str) -> None:
    KNOWN.pop(name, None)


def choices() -> list[tuple[str, str]]:
    """(name, title) of every known platform, as registered: the connection forms' platform field."""
    return [(platform.name, platform.title) for platform in KNOWN.values()]


def title_of(name: str) -> str:
    """The platform as the pages name it; a name no platform has any more, as it is."""
    platform = KNOWN.get(name)
    return platform.title if platform else name


def is_known(name: str) -> bool:
    return name in KNOWN


def shop_domain_problem(name: str, domain: str) -> str:
    """What is wrong with `domain` (normalized) as a shop of platform `name`; empty when nothing is."""
    platform = KNOWN.get(name)
    return platform.shop_domain_problem(domain) if platform else ""


def shop_key(name: str, value: str) -> str | None:
    """`value` (a domain or an address) as platform `name` keys its shops; None when it names none."""
    platform = KNOWN.get(name)
    return platform.shop_key(value) if platform else normalize_host(value)
