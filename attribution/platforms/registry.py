"""The storefront platforms this service receives orders from: the one list (a third platform is a module
beside shopify.py, added to `register` below). Registering a platform gives it its receiver
(attribution.platforms.receiver), its endpoints in the outcome log (orders, changes, its sync) with their labels
(attribution.outcomes.endpoints), its place among the connections' platforms (brands.known_platforms: the
connection forms' choices and the connection's check, which brands, below attribution, cannot read here) and
its part of the setup page (its steps, its test request). attribution.apps loads this module when Django
starts, so every label is known before the first request.
"""

import re

from attribution.outcomes import endpoints
from brands import known_platforms

from . import shopify, woocommerce
from .platform import Platform

# The outcome log's endpoint holds 24 characters: "<name>_change" must fit (so does the connection's column).
MAX_NAME_LENGTH = 24 - len("_change")

PLATFORMS: dict[str, Platform] = {}


def register(platform: Platform) -> Platform:
    """Add `platform` (its name not yet taken) with its endpoints and labels; returns it."""
    name = platform.name
    if len(name) > MAX_NAME_LENGTH or not re.fullmatch(known_platforms.NAME_SHAPE, name):
        raise ValueError(
            "a platform's name is lowercase letters, digits and underscores, starting with a letter, "
            f"at most {MAX_NAME_LENGTH} characters"
        )
    if name in PLATFORMS:
        raise ValueError(f"platform {name} is registered already")
    PLATFORMS[name] = platform
    endpoints.add_platform(
        name,
        platform.endpoint_label,
        platform.change_label,
        platform.words,
        sync_label=platform.sync_label,
    )
    known_platforms.know(platform)
    return platform


def unregister(name: str) -> None:
    """Remove a platform registered for a while (a test's)."""
    PLATFORMS.pop(name, None)
    endpoints.remove_platform(name)
    known_platforms.forget(name)


def platform_named(name: str) -> Platform | None:
    return PLATFORMS.get(name)


def platforms() -> list[Platform]:
    return list(PLATFORMS.values())


def platform_of_endpoint(endpoint: str) -> Platform | None:
    """The platform whose order endpoint or change endpoint (outcome log) this is; None for any other."""
    for name, platform in PLATFORMS.items():
        if endpoint in (name, endpoints.CHANGE_ENDPOINT.get(name), endpoints.SYNC_ENDPOINT.get(name)):
            return platform
    return None


register(shopify.SHOPIFY)
register(woocommerce.WOOCOMMERCE)
