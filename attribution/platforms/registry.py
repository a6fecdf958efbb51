"""The storefront platforms this service receives orders from: the one list (a third platform is a module
beside shopify.py, added to `register` below). Registering a platform gives it its receiver
(attribution.platforms.urls), its two endpoints in the outcome log with their labels
(attribution.outcomes.endpoints) and its setup test request (health.pages.setup). attribution.apps loads
this module when Django starts, so every label is known before the first request.
"""

from attribution.outcomes import endpoints

from . import shopify, woocommerce
from .plugin import Platform

# The outcome log's endpoint holds 24 characters: "<name>_change" must fit.
MAX_NAME_LENGTH = 24 - len("_change")

PLATFORMS: dict[str, Platform] = {}


def register(platform: Platform) -> Platform:
    """Add `platform` (its name not yet taken) with its endpoints and labels; returns it."""
    name = platform.name
    if not name or not name.isidentifier() or len(name) > MAX_NAME_LENGTH or name != name.lower():
        raise ValueError(f"a platform's name is a lowercase identifier of at most {MAX_NAME_LENGTH} characters")
    if name in PLATFORMS:
        raise ValueError(f"platform {name} is registered already")
    PLATFORMS[name] = platform
    endpoints.add_platform(name, platform.endpoint_label, platform.change_label, platform.words)
    return platform


def unregister(name: str) -> None:
    """Remove a platform registered for a while (a test's)."""
    PLATFORMS.pop(name, None)
    endpoints.remove_platform(name)


def platform_named(name: str) -> Platform | None:
    return PLATFORMS.get(name)


def platforms() -> list[Platform]:
    return list(PLATFORMS.values())


register(shopify.SHOPIFY)
register(woocommerce.WOOCOMMERCE)
