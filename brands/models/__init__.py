"""Brands and what account managers register for them: properties, developer keys, creators,
discount codes, known shoppers, commission plan versions, storefront-platform connections, their products' collections (catalog) (and their platforms' privacy requests) and the users who may read a brand's
health pages, with each user's own settings (the time zone pages show times in). One module per concept;
this package lists them all, so `from brands.models import Brand` reads as before.

Every table that holds a brand's data carries `brand` and its uniqueness rules include it, so the
data can later be partitioned or sharded by brand.
"""

from brands.timezones import validate_time_zone  # noqa: F401  (migration 0004 names it brands.models.validate_time_zone)

from .brand import DEFAULT_REPORTING_CURRENCY, Brand
from .catalog import ProductCollections
from .creators import Creator, DiscountCode, KnownShopper
from .developer_keys import DeveloperKey, DeveloperKeyManager
from .key_handovers import KeyHandover
from .plans import PlanVersion
from .platform_connections import PlatformConnection, connection_of_shop
from .privacy_requests import PlatformPrivacyRequest
from .properties import Property
from .users import BrandMembership, UserSettings, brands_visible_to

__all__ = [
    "DEFAULT_REPORTING_CURRENCY",
    "Brand",
    "BrandMembership",
    "Creator",
    "DeveloperKey",
    "DeveloperKeyManager",
    "DiscountCode",
    "KeyHandover",
    "KnownShopper",
    "PlanVersion",
    "PlatformConnection",
    "PlatformPrivacyRequest",
    "ProductCollections",
    "Property",
    "UserSettings",
    "brands_visible_to",
    "connection_of_shop",
]
